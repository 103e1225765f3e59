// SPDX-License-Identifier: GPL-2.0
/*
 * FlowJIT and code written through another mapping of its page: the
 * read-write view of a memfd whose read-execute view runs (a
 * double-mapped JIT), pwrite(2) into the memfd or into a FUSE file
 * (whose write path copies into the page cache by its own code), another
 * process' view, views made writable later (a new mapping read first,
 * mprotect, or rebuilt by NUMA balancing's hinting fault). Each
 * write must end the running version with a WRITE record of the
 * executable address (FLOWJIT_EVF_ALIAS), and the next run must be
 * snapshotted with the new bytes. A page pinned for long-term kernel
 * access (io_uring fixed buffers), whose writes cannot be seen, has its
 * EXEC records flagged FLOWJIT_EVF_PINNED.
 */
#define _GNU_SOURCE
#include <linux/io_uring.h>
#include <pthread.h>
#include <sched.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/uio.h>

#include "guest_harness.h"
#include "flowjit_util.h"
#include "fuse_file.h"
#include "../progs/memfd_views.h"

#define PAGE	4096UL

typedef int (*jit_fn)(void);

static struct fj_rec recs[FJ_MAX_EVENTS];

FIXTURE(alias) {
	int fd;
	unsigned char *rw, *rx;
};

FIXTURE_SETUP(alias)
{
	ASSERT_EQ(0, access("/proc/flowjit/control", F_OK));
	ASSERT_EQ(0, fj_control("bufsize 8388608"));
	ASSERT_EQ(0, fj_reset());
	self->fd = memfd_views("alias", PAGE, &self->rw, &self->rx);
	ASSERT_LE(0, self->fd);
	/* tracking starts with the views in place, the default mode */
	ASSERT_EQ(0, fj_enable(0));
}

FIXTURE_TEARDOWN(alias)
{
	fj_disable();
	munmap(self->rw, PAGE);
	munmap(self->rx, PAGE);
	close(self->fd);
}

/* The records of @pid at @addr's page: "E" for EXEC, "W" for WRITE, in order. */
static int page_events(pid_t pid, const void *addr, char *seq, size_t len,
		       struct fj_rec **last_exec, struct fj_rec **last_write)
{
	int i, n = fj_drain(recs, FJ_MAX_EVENTS);
	size_t k = 0;

	*last_exec = *last_write = NULL;
	for (i = 0; i < n && k + 1 < len; i++) {
		struct flowjit_event *ev = &recs[i].ev;

		if ((pid_t)ev->pid != pid || ev->addr != (uintptr_t)addr)
			continue;
		if (ev->type == FLOWJIT_EV_EXEC) {
			seq[k++] = 'E';
			*last_exec = &recs[i];
		} else if (ev->type == FLOWJIT_EV_WRITE) {
			seq[k++] = 'W';
			*last_write = &recs[i];
		}
	}
	seq[k] = '\0';
	return n;
}

/*
 * Run version 1 (ret 1) from the read-execute view, have @write put
 * version 2 (ret 2) in, run it: two EXECs with the right bytes and one
 * WRITE between them, with @want_flags (and no others of ALIAS, KERNEL,
 * REMOTE); returns the WRITE record.
 */
static struct fj_rec *check_rewrite(struct __test_metadata *_metadata,
				    FIXTURE_DATA(alias) *self,
				    void (*write)(FIXTURE_DATA(alias) *self, int v),
				    unsigned int want_flags)
{
	const unsigned int checked = FLOWJIT_EVF_ALIAS | FLOWJIT_EVF_KERNEL | FLOWJIT_EVF_REMOTE;
	struct fj_rec *exec, *wr;
	char seq[16];

	write(self, 1);
	EXPECT_EQ(1, ((jit_fn)self->rx)());
	write(self, 2);
	EXPECT_EQ(2, ((jit_fn)self->rx)());
	ASSERT_LT(0, page_events(getpid(), self->rx, seq, sizeof(seq), &exec, &wr));
	EXPECT_STREQ("EWE", seq);
	if (!exec || !wr)
		return NULL;
	EXPECT_EQ(want_flags, wr->ev.flags & checked);
	EXPECT_EQ(0, memcmp(exec->page, self->rw, 6)) TH_LOG("the snapshot is not version 2");
	return wr;
}

static void write_view(FIXTURE_DATA(alias) *self, int v)
{
	emit_ret_imm(self->rw, v);
}

static void write_file(FIXTURE_DATA(alias) *self, int v)
{
	unsigned char code[6];

	emit_ret_imm(code, v);
	if (pwrite(self->fd, code, sizeof(code), 0) != sizeof(code))
		abort();
}

/* A child process writes version @v through its copy of the read-write view. */
static void write_child(FIXTURE_DATA(alias) *self, int v)
{
	int st;
	pid_t pid = fork();

	if (!pid) {
		emit_ret_imm(self->rw, v);
		_exit(0);
	}
	if (pid < 0 || waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st))
		abort();
}

TEST_F(alias, write_through_the_read_write_view)
{
	struct fj_rec *wr = check_rewrite(_metadata, self, write_view, FLOWJIT_EVF_ALIAS);

	if (wr)
		EXPECT_NE(0, wr->ev.ip) TH_LOG("the IP of the writing store");
}

TEST_F(alias, pwrite_into_the_memfd)
{
	check_rewrite(_metadata, self, write_file, FLOWJIT_EVF_ALIAS | FLOWJIT_EVF_KERNEL);
}

TEST_F(alias, write_by_another_process)
{
	struct fj_rec *wr = check_rewrite(_metadata, self, write_child,
					  FLOWJIT_EVF_ALIAS | FLOWJIT_EVF_REMOTE);

	if (wr)
		EXPECT_NE((uint64_t)getpid(), wr->ev.aux) TH_LOG("aux: the writer, the child");
}

/*
 * Views that become writable after the code ran: a new shared mapping
 * read before it is written (its read fault maps the page), and a
 * read-only view made writable by mprotect(). Neither may write without
 * a WRITE record.
 */
TEST_F(alias, views_made_writable_later)
{
	struct fj_rec *exec, *wr;
	unsigned char *late, *ro;
	volatile unsigned char c;
	char seq[16];

	emit_ret_imm(self->rw, 1);
	ro = mmap(NULL, PAGE, PROT_READ, MAP_SHARED, self->fd, 0);
	ASSERT_NE(MAP_FAILED, ro);
	c = ro[0];
	EXPECT_EQ(1, ((jit_fn)self->rx)());

	late = mmap(NULL, PAGE, PROT_READ | PROT_WRITE, MAP_SHARED, self->fd, 0);
	ASSERT_NE(MAP_FAILED, late);
	c = late[0];
	emit_ret_imm(late, 2);
	EXPECT_EQ(2, ((jit_fn)self->rx)());

	ASSERT_EQ(0, mprotect(ro, PAGE, PROT_READ | PROT_WRITE));
	emit_ret_imm(ro, 3);
	EXPECT_EQ(3, ((jit_fn)self->rx)());
	(void)c;

	ASSERT_LT(0, page_events(getpid(), self->rx, seq, sizeof(seq), &exec, &wr));
	EXPECT_STREQ("EWEWE", seq);
	if (exec)
		EXPECT_EQ(0, memcmp(exec->page, ro, 6));
	munmap(late, PAGE);
	munmap(ro, PAGE);
}

/*
 * pwrite(2) into a FUSE file whose shared read-execute mapping runs:
 * FUSE copies into the page cache by its own code (without a writeback
 * cache), as btrfs and ntfs3 do, not through generic_perform_write().
 */
TEST_F(alias, pwrite_into_a_fuse_file)
{
	const unsigned int checked = FLOWJIT_EVF_ALIAS | FLOWJIT_EVF_KERNEL | FLOWJIT_EVF_REMOTE;
	struct fj_rec *exec, *wr;
	unsigned char code[6], *rx;
	struct fuse_file ff;
	char seq[16];
	int fd, v;

	ASSERT_EQ(0, fuse_file_mount(&ff, "/fjfuse", PAGE)) TH_LOG("FUSE: %m");
	fd = open(ff.path, O_RDWR);
	ASSERT_LE(0, fd) TH_LOG("%s: %m", ff.path);
	emit_ret_imm(code, 1);
	ASSERT_EQ(sizeof(code), pwrite(fd, code, sizeof(code), 0));
	rx = mmap(NULL, PAGE, PROT_READ | PROT_EXEC, MAP_SHARED, fd, 0);
	ASSERT_NE(MAP_FAILED, rx);
	for (v = 1; v <= 3; v++) {
		emit_ret_imm(code, v);
		ASSERT_EQ(sizeof(code), pwrite(fd, code, sizeof(code), 0));
		EXPECT_EQ(v, ((jit_fn)rx)());
	}
	ASSERT_LT(0, page_events(getpid(), rx, seq, sizeof(seq), &exec, &wr));
	EXPECT_STREQ("EWEWE", seq);
	if (exec && wr) {
		EXPECT_EQ(FLOWJIT_EVF_ALIAS | FLOWJIT_EVF_KERNEL, wr->ev.flags & checked);
		EXPECT_EQ(0, memcmp(exec->page, code, sizeof(code)))
			TH_LOG("the snapshot is not version 3");
	}
	munmap(rx, PAGE);
	close(fd);
	fuse_file_umount(&ff);
}

/*
 * A FUSE server stores bytes into the page cache of its file on its own
 * (FUSE_NOTIFY_STORE, no request from the kernel): an unprivileged
 * server can so change code that a tracked mapping of the file runs.
 */
TEST_F(alias, fuse_server_stores_into_the_page_cache)
{
	struct {
		struct fuse_out_header h;
		struct fuse_notify_store_out st;
		unsigned char code[8];
	} msg = {
		.h = { .len = sizeof(msg), .error = FUSE_NOTIFY_STORE },
		.st = { .nodeid = FUSE_FILE_INO, .offset = 0, .size = sizeof(msg.code) },
	};
	struct fj_rec *exec, *wr;
	unsigned char code[6], *rx;
	struct fuse_file ff;
	char seq[16];
	int fd;

	ASSERT_EQ(0, fuse_file_mount(&ff, "/fjfuse", PAGE)) TH_LOG("FUSE: %m");
	fd = open(ff.path, O_RDWR);
	ASSERT_LE(0, fd) TH_LOG("%s: %m", ff.path);
	emit_ret_imm(code, 1);
	ASSERT_EQ(sizeof(code), pwrite(fd, code, sizeof(code), 0));
	rx = mmap(NULL, PAGE, PROT_READ | PROT_EXEC, MAP_SHARED, fd, 0);
	ASSERT_NE(MAP_FAILED, rx);
	EXPECT_EQ(1, ((jit_fn)rx)());
	emit_ret_imm(msg.code, 2);
	ASSERT_EQ(sizeof(msg), write(ff.dev, &msg, sizeof(msg))) TH_LOG("notify: %m");
	EXPECT_EQ(2, ((jit_fn)rx)());
	ASSERT_LT(0, page_events(getpid(), rx, seq, sizeof(seq), &exec, &wr));
	EXPECT_STREQ("EWE", seq);
	if (exec && wr) {
		EXPECT_TRUE(wr->ev.flags & FLOWJIT_EVF_ALIAS);
		EXPECT_EQ(0, memcmp(exec->page, msg.code, 6)) TH_LOG("the snapshot is not version 2");
	}
	munmap(rx, PAGE);
	close(fd);
	fuse_file_umount(&ff);
}

/*
 * A page pinned for the kernel's long-term writes (an io_uring fixed
 * buffer): what is written through the pin raises no fault, so its
 * snapshot is flagged; an unpinned run is not.
 */
TEST_F(alias, pinned_page_is_flagged)
{
	struct io_uring_params p = { .sq_entries = 0 };
	struct iovec iov = { .iov_base = self->rw, .iov_len = PAGE };
	struct fj_rec *exec, *wr;
	char seq[16];
	int ring;

	emit_ret_imm(self->rw, 1);
	EXPECT_EQ(1, ((jit_fn)self->rx)());
	ASSERT_LT(0, page_events(getpid(), self->rx, seq, sizeof(seq), &exec, &wr));
	ASSERT_NE(NULL, exec);
	EXPECT_EQ(0, exec->ev.flags & FLOWJIT_EVF_PINNED);

	ring = syscall(__NR_io_uring_setup, 4, &p);
	if (ring < 0 && errno == ENOSYS)
		SKIP(return, "no io_uring in this kernel");
	ASSERT_LE(0, ring);
	ASSERT_EQ(0, syscall(__NR_io_uring_register, ring, IORING_REGISTER_BUFFERS, &iov, 1));
	emit_ret_imm(self->rw, 2);
	EXPECT_EQ(2, ((jit_fn)self->rx)());
	ASSERT_LT(0, page_events(getpid(), self->rx, seq, sizeof(seq), &exec, &wr));
	ASSERT_NE(NULL, exec);
	EXPECT_EQ(FLOWJIT_EVF_PINNED, exec->ev.flags & FLOWJIT_EVF_PINNED);
	close(ring);
}

struct direct_read {
	int fd;
	void *buf;
	ssize_t ret;
};

static void *direct_read(void *arg)
{
	struct direct_read *r = arg;

	r->ret = pread(r->fd, r->buf, PAGE, 0);
	return NULL;
}

/*
 * An O_DIRECT read into the code page, in flight when the page becomes
 * executable: the kernel holds a plain reference to it (FUSE, as the
 * block layer, takes it with iov_iter_get_pages2()), not a pin, and
 * writes the page when the read completes, with no fault and no WRITE.
 * The EXEC record must say that the snapshot may not stay what runs.
 */
TEST_F(alias, o_direct_read_in_flight_is_flagged)
{
	struct direct_read r = { .buf = self->rw };
	struct fj_rec *exec, *wr;
	unsigned char code[8];
	struct fuse_file ff;
	cpu_set_t cpus;
	pthread_t t;
	char seq[16];

	/* one CPU: the page's LRU batches are this CPU's, drained at the fault */
	CPU_ZERO(&cpus);
	CPU_SET(0, &cpus);
	ASSERT_EQ(0, sched_setaffinity(0, sizeof(cpus), &cpus));
	emit_ret_imm(self->rw, 1);
	EXPECT_EQ(1, ((jit_fn)self->rx)());
	ASSERT_LT(0, page_events(getpid(), self->rx, seq, sizeof(seq), &exec, &wr));
	ASSERT_NE(NULL, exec);
	EXPECT_EQ(0, exec->ev.flags & FLOWJIT_EVF_PINNED) TH_LOG("flagged with no read in flight");

	fuse_file_read_delay_ms = 1500;
	ASSERT_EQ(0, fuse_file_mount(&ff, "/fjfuse", PAGE)) TH_LOG("FUSE: %m");
	r.fd = open(ff.path, O_RDWR);
	ASSERT_LE(0, r.fd);
	emit_ret_imm(code, 3);
	ASSERT_EQ(sizeof(code), pwrite(r.fd, code, sizeof(code), 0));
	close(r.fd);
	r.fd = open(ff.path, O_RDONLY | O_DIRECT);
	ASSERT_LE(0, r.fd) TH_LOG("O_DIRECT: %m");
	emit_ret_imm(self->rw, 2);
	ASSERT_EQ(0, pthread_create(&t, NULL, direct_read, &r));
	usleep(500000);		/* the read waits for the server, its page held */
	EXPECT_EQ(2, ((jit_fn)self->rx)());
	ASSERT_EQ(0, pthread_join(t, NULL));
	EXPECT_EQ(PAGE, r.ret) TH_LOG("read: %m");
	ASSERT_LT(0, page_events(getpid(), self->rx, seq, sizeof(seq), &exec, &wr));
	ASSERT_NE(NULL, exec);
	EXPECT_EQ(FLOWJIT_EVF_PINNED, exec->ev.flags & FLOWJIT_EVF_PINNED);
	/* the read wrote version 3 over the snapshot's 2, unseen */
	EXPECT_EQ(3, ((jit_fn)self->rx)());
	EXPECT_NE(0, memcmp(exec->page, self->rw, 8));
	close(r.fd);
	fuse_file_read_delay_ms = 0;
	fuse_file_umount(&ff);
}

/*
 * Truncation that ends inside the code's page zeroes the rest of the
 * page in place, with the page still mapped and executable: a hole
 * punched into its second half (fallocate), then a file size inside it
 * (ftruncate). Each must end the running version with a WRITE record,
 * and the next run's snapshot must show the zeroes.
 */
TEST_F(alias, truncation_inside_the_page)
{
	static const char * const what[] = { "fallocate(PUNCH_HOLE)", "ftruncate" };
	const size_t off = PAGE / 2 + 100;
	struct fj_rec *exec, *wr;
	char seq[16];
	int i, ret;

	for (i = 0; i < 2; i++) {
		write_view(self, 1);
		self->rw[off] = 0xc3;
		fj_drain(recs, FJ_MAX_EVENTS);	/* the records of that write */
		EXPECT_EQ(1, ((jit_fn)self->rx)());
		if (i == 0)
			ret = fallocate(self->fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
					PAGE / 2, PAGE / 2);
		else
			ret = ftruncate(self->fd, PAGE / 2);
		ASSERT_EQ(0, ret) TH_LOG("%s: %s", what[i], strerror(errno));
		EXPECT_EQ(1, ((jit_fn)self->rx)());
		ASSERT_LT(0, page_events(getpid(), self->rx, seq, sizeof(seq), &exec, &wr));
		EXPECT_STREQ("EWE", seq) TH_LOG("%s", what[i]);
		if (exec)
			EXPECT_EQ(0, exec->page[off]) TH_LOG("%s: the snapshot has the old byte", what[i]);
		ASSERT_EQ(0, ftruncate(self->fd, PAGE));
	}
}

/* A counter of /proc/vmstat, or -1. */
static long vmstat(const char *name)
{
	char line[128];
	size_t len = strlen(name);
	long v = -1;
	FILE *f = fopen("/proc/vmstat", "r");

	while (f && fgets(line, sizeof(line), f))
		if (!strncmp(line, name, len) && line[len] == ' ')
			v = atol(line + len + 1);
	if (f)
		fclose(f);
	return v;
}

/* Keep the CPU busy for @ms: NUMA balancing scans at a running task's ticks. */
static void spin_ms(unsigned int ms)
{
	struct timespec t0, t;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	do
		clock_gettime(CLOCK_MONOTONIC, &t);
	while ((t.tv_sec - t0.tv_sec) * 1000 + (t.tv_nsec - t0.tv_nsec) / 1000000 < ms);
}

#define NUMA_KNOBS "/sys/kernel/debug/sched/numa_balancing/"
#define MPOL_BIND 2
#define MPOL_F_NUMA_BALANCING (1 << 13)

/*
 * NUMA balancing's scanner makes the read-write view's PTE PROT_NONE
 * (a shared mapping is scanned whatever node its page is on, a memfd's
 * once its policy asks for it: MPOL_F_NUMA_BALANCING), and its hinting
 * fault rebuilds the PTE from the VMA's protection, which for a shared
 * memfd mapping is writable: after the code page was made executable
 * (which write-protected the view), that must not make the view
 * writable again. Rounds: run the code, let the scanner run, read
 * through the view (the hinting fault, if the scanner reached it), then
 * write the next version: the write must still be logged.
 */
TEST_F(alias, numa_hinting_fault_keeps_the_view_read_only)
{
	static const char * const knob[] = {
		"/proc/sys/kernel/numa_balancing", NUMA_KNOBS "scan_delay_ms",
		NUMA_KNOBS "scan_period_min_ms", NUMA_KNOBS "scan_period_max_ms",
	};
	static const char * const value[] = { "1", "0", "20", "100" };
	int i, round, hinted = 0, missed = 0;
	char old[16] = "", saved[4][16];
	unsigned long nodes;
	struct fj_rec *exec, *wr;
	long h0, h1;
	char seq[16];

	if (access("/proc/sys/kernel/numa_balancing", W_OK) || vmstat("numa_hint_faults") < 0)
		SKIP(return, "no NUMA balancing in this kernel");
	/* the memfd's policy: bound to the online nodes, balanced (6.1: no MPOL_MF_LAZY) */
	file_read("/sys/devices/system/node/online", old, sizeof(old));
	nodes = (1UL << (strchr(old, '-') ? atoi(strchr(old, '-') + 1) + 1 : 1)) - 1;
	if (syscall(SYS_mbind, self->rw, PAGE, MPOL_BIND | MPOL_F_NUMA_BALANCING, &nodes,
		    8 * sizeof(nodes), 0))
		SKIP(return, "mbind(MPOL_F_NUMA_BALANCING): %s", strerror(errno));
	/* on, and scanning often (the defaults scan every second or less often) */
	for (i = 0; i < 4; i++)
		file_read(knob[i], saved[i], sizeof(saved[i]));
	ASSERT_EQ(0, proc_write(knob[0], "1"));
	for (i = 1; i < 4; i++)
		proc_write(knob[i], value[i]);
	for (round = 0; round < 60 && hinted < 5; round++) {
		write_view(self, round);
		EXPECT_EQ(round, ((jit_fn)self->rx)());
		fj_drain(recs, FJ_MAX_EVENTS);
		spin_ms(100 * guest_time_scale());
		h0 = vmstat("numa_hint_faults");
		*(volatile unsigned char *)(self->rw + 100);
		h1 = vmstat("numa_hint_faults");
		write_view(self, round + 1000);
		EXPECT_EQ(round + 1000, ((jit_fn)self->rx)());
		page_events(getpid(), self->rx, seq, sizeof(seq), &exec, &wr);
		if (h1 > h0) {
			hinted++;
			missed += !wr;
		}
		EXPECT_NE(NULL, wr) TH_LOG("round %d: the write was not logged (%s)", round, seq);
	}
	for (i = 0; i < 4; i++)
		if (saved[i][0])
			proc_write(knob[i], saved[i]);
	fprintf(stderr, "# numa: %d rounds, %d with a hinting fault on the view, %d writes not logged\n",
		round, hinted, missed);
	ASSERT_LT(0, hinted) TH_LOG("the scanner never reached the view: the test shows nothing");
	EXPECT_EQ(0, missed);
}

TEST_HARNESS_MAIN
