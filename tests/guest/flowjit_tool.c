// SPDX-License-Identifier: GPL-2.0
/*
 * The flowjit tool in the guest. This binary is its own JIT program: run
 * as "flowjit_tool jit N STATUS" it rewrites one RWX page N times (each
 * version returns 1000 + i), runs every version and exits with STATUS;
 * as "flowjit_tool pinned N" it writes N versions through the read-write
 * view of a memfd that an io_uring pins and runs them through its
 * read-execute view.
 * The tests record it with "flowjit record", read the data file with
 * their own parser (Documentation/flowjit-file-format.rst) and check
 * every code version, the exit status, the report, bad use, and LuaJIT.
 */
#define _GNU_SOURCE
/* before fcntl.h: its RWF_* defer to the kernel's */
#include <linux/io_uring.h>
#include <fcntl.h>
#include <glob.h>
#include <limits.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sched.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <linux/flowjit.h>

#include "guest_harness.h"
#include "flowjit_util.h"
#include "../progs/memfd_views.h"

#define PAGE 4096
#define FJ_END 0x8000

static const char *const flowjit_paths[] = {
	"/jifl/bin/flowjit",
#ifdef JIFL_TOP
	JIFL_TOP "/build/bin/flowjit",
#endif
};

static char self_exe[PATH_MAX];

static int run_versions(int versions, uint32_t base)
{
	unsigned char *code = mmap(NULL, PAGE, PROT_READ | PROT_WRITE | PROT_EXEC,
				   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	int i;

	if (code == MAP_FAILED)
		return -1;
	printf("code=%p\n", code);
	for (i = 0; i < versions; i++) {
		emit_ret_imm(code, base + i);
		if (((int (*)(void))code)() != (int)(base + i))
			return -1;
	}
	printf("jit: %d versions ok\n", versions);
	return 0;
}

/*
 * A double-mapped JIT whose page an io_uring fixed buffer pins: exit 77
 * without io_uring.
 */
static int run_pinned(int versions)
{
	struct io_uring_params p = { .sq_entries = 0 };
	unsigned char *rw, *rx;
	struct iovec iov;
	int ring, i;

	if (memfd_views("pinned", PAGE, &rw, &rx) < 0)
		return 1;
	ring = syscall(__NR_io_uring_setup, 4, &p);
	if (ring < 0)
		return errno == ENOSYS ? 77 : 1;
	iov = (struct iovec){ .iov_base = rw, .iov_len = PAGE };
	if (syscall(__NR_io_uring_register, ring, IORING_REGISTER_BUFFERS, &iov, 1))
		return 1;
	for (i = 0; i < versions; i++) {
		emit_ret_imm(rw, 3000 + i);
		if (((int (*)(void))rx)() != 3000 + i)
			return 1;
	}
	return 0;
}

/*
 * The JIT program, run before the harness when this binary is started
 * as "jit N STATUS", "jitfork N", "jitslow N" (10 ms between versions),
 * "signal SIG", or "inpidns FLOWJIT FILE": FLOWJIT's "record -o FILE"
 * of "jitfork 10", run as pid 1 of a new pid namespace with a /proc of
 * its own, as in a container (glibc passes main's arguments to
 * constructors).
 */
__attribute__((constructor)) static void jit_main(int argc, char **argv)
{
	int n = argc > 2 ? atoi(argv[2]) : 0, status;
	pid_t pid;

	if (argc < 3)
		return;
	setvbuf(stdout, NULL, _IONBF, 0);
	if (!strcmp(argv[1], "jit"))
		_exit(run_versions(n, 1000) ? 99 : argc > 3 ? atoi(argv[3]) : 0);
	if (!strcmp(argv[1], "pinned"))
		_exit(run_pinned(n));
	if (!strcmp(argv[1], "jitfork")) {
		pid = fork();
		if (pid == 0)
			_exit(run_versions(n, 2000) ? 99 : 0);
		if (run_versions(n, 1000) || waitpid(pid, &status, 0) != pid)
			_exit(99);
		_exit(WIFEXITED(status) ? WEXITSTATUS(status) : 98);
	}
	if (!strcmp(argv[1], "jitslow")) {
		unsigned char *code = mmap(NULL, PAGE, PROT_READ | PROT_WRITE | PROT_EXEC,
					   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		int i;

		for (i = 0; i < n; i++) {
			emit_ret_imm(code, i);
			if (((int (*)(void))code)() != i)
				_exit(99);
			usleep(10000);
		}
		_exit(0);
	}
	if (!strcmp(argv[1], "signal"))
		raise(n);
	if (!strcmp(argv[1], "inpidns") && argc > 3) {
		static char exe[PATH_MAX];
		char *rec[] = { argv[2], "record", "-q", "-o", argv[3], "--",
				exe, "jitfork", "10", NULL };

		if (readlink("/proc/self/exe", exe, sizeof(exe) - 1) <= 0 ||
		    unshare(CLONE_NEWPID | CLONE_NEWNS))
			_exit(97);
		pid = fork();
		if (pid == 0) {
			if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) ||
			    mount("proc", "/proc", "proc", 0, NULL))
				_exit(96);
			execv(argv[2], rec);
			_exit(95);
		}
		if (pid < 0 || waitpid(pid, &status, 0) != pid)
			_exit(94);
		_exit(WIFEXITED(status) ? WEXITSTATUS(status) : 93);
	}
}

static const char *flowjit_path(void)
{
	size_t i;

	for (i = 0; i < sizeof(flowjit_paths) / sizeof(flowjit_paths[0]); i++)
		if (!access(flowjit_paths[i], X_OK))
			return flowjit_paths[i];
	return NULL;
}

/* Output of the last run(). */
static char out[1 << 20], err[1 << 16];

/* Run argv (NULL-ended), stdout and stderr to out[] and err[]; the wait status. */
static int run(char *const argv[])
{
	int status;
	pid_t pid = fork();

	if (pid == 0) {
		int o = open("/tmp/fjt.out", O_WRONLY | O_CREAT | O_TRUNC, 0644);
		int e = open("/tmp/fjt.err", O_WRONLY | O_CREAT | O_TRUNC, 0644);

		dup2(o, 1);
		dup2(e, 2);
		execv(argv[0], argv);
		_exit(127);
	}
	if (pid < 0 || waitpid(pid, &status, 0) != pid)
		return -1;
	file_read("/tmp/fjt.out", out, sizeof(out));
	file_read("/tmp/fjt.err", err, sizeof(err));
	return status;
}

/* flowjit's exit status, or 1000 + signal. */
static int run_status(char *const argv[])
{
	int st = run(argv);

	if (st < 0)
		return -1;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 1000 + WTERMSIG(st);
}

struct rec {
	struct flowjit_event ev;
	const unsigned char *page;
};

struct fjdata {
	unsigned char *buf;
	size_t len;
	uint32_t pid, flags;
	struct rec *recs;
	int n;
};

/*
 * An independent reader of the documented format: header, records, end
 * record (count and bytes checked; the checksum is the library's job).
 */
static int load(const char *path, struct fjdata *d)
{
	uint32_t version, hsize, rsize, psize;
	uint64_t bytes = 0;
	struct stat st;
	size_t off;
	int fd = open(path, O_RDONLY);

	memset(d, 0, sizeof(*d));
	if (fd < 0 || fstat(fd, &st))
		return -1;
	d->len = st.st_size;
	d->buf = malloc(d->len + 1);
	if (read(fd, d->buf, d->len) != (ssize_t)d->len)
		return -2;
	close(fd);
	if (d->len < 56 || memcmp(d->buf, "JIFLFJ\r\n", 8))
		return -3;
	memcpy(&version, d->buf + 8, 4);
	memcpy(&hsize, d->buf + 12, 4);
	memcpy(&rsize, d->buf + 16, 4);
	memcpy(&psize, d->buf + 20, 4);
	memcpy(&d->pid, d->buf + 40, 4);
	memcpy(&d->flags, d->buf + 44, 4);
	if (version != 1 || rsize != sizeof(struct flowjit_event) || psize != PAGE ||
	    hsize % 8 || hsize > d->len)
		return -4;
	d->recs = calloc(d->len / sizeof(struct flowjit_event), sizeof(*d->recs));
	for (off = hsize; off + sizeof(struct flowjit_event) <= d->len;) {
		struct rec *r = &d->recs[d->n];

		memcpy(&r->ev, d->buf + off, sizeof(r->ev));
		if (r->ev.size < sizeof(r->ev) || r->ev.size > d->len - off)
			return -5;
		if (r->ev.type == FJ_END)
			return r->ev.seq == (uint64_t)d->n && r->ev.len == bytes &&
			       off + r->ev.size == d->len ? 0 : -6;
		if (r->ev.flags & FLOWJIT_EVF_PAYLOAD)
			r->page = d->buf + off + sizeof(r->ev);
		bytes += r->ev.size;
		off += r->ev.size;
		d->n++;
	}
	return -7;	/* no end record */
}

static void unload(struct fjdata *d)
{
	free(d->buf);
	free(d->recs);
}

static int count(const struct fjdata *d, int type, uint32_t pid)
{
	int i, c = 0;

	for (i = 0; i < d->n; i++)
		c += d->recs[i].ev.type == type && (!pid || d->recs[i].ev.pid == pid);
	return c;
}

static uint64_t code_addr(void)
{
	const char *p = strstr(out, "code=");

	return p ? strtoull(p + 5, NULL, 16) : 0;
}

FIXTURE(tool) {
	const char *flowjit;
};

FIXTURE_SETUP(tool)
{
	glob_t old;
	ssize_t n;
	size_t i;

	/* flowjit record does not replace files of earlier tests */
	if (!glob("/tmp/*.fj", 0, NULL, &old)) {
		for (i = 0; i < old.gl_pathc; i++)
			unlink(old.gl_pathv[i]);
		globfree(&old);
	}
	self->flowjit = flowjit_path();
	ASSERT_NE(NULL, self->flowjit) TH_LOG("flowjit: " GUEST_NOT_IN_IMAGE);
	ASSERT_EQ(0, access("/proc/flowjit/stream", F_OK));
	n = readlink("/proc/self/exe", self_exe, sizeof(self_exe) - 1);
	ASSERT_GT(n, 0);
	self_exe[n] = '\0';
}

FIXTURE_TEARDOWN(tool)
{
}

/* Every version of the code, in order, at the entry IP, TSC increasing. */
TEST_F(tool, records_every_code_version)
{
	char *argv[] = { (char *)self->flowjit, "record", "-o", "/tmp/x.fj", "--",
			 self_exe, "jit", "40", "0", NULL };
	struct fjdata d;
	uint64_t code, last_tsc = 0, last_seq = 0;
	uint32_t v;
	int i, exec = 0;

	ASSERT_EQ(0, run_status(argv));
	TH_LOG("flowjit: %s", err);
	code = code_addr();
	ASSERT_NE(0, code);
	EXPECT_NE(NULL, strstr(out, "jit: 40 versions ok"));
	ASSERT_EQ(0, load("/tmp/x.fj", &d));
	EXPECT_EQ(FLOWJIT_F_INHERIT, d.flags);
	EXPECT_EQ(0, count(&d, FLOWJIT_EV_LOST, 0));
	EXPECT_EQ(1, count(&d, FLOWJIT_EV_TRACK, d.pid));
	EXPECT_EQ(1, count(&d, FLOWJIT_EV_EXECVE, d.pid));
	for (i = 0; i < d.n; i++) {
		const struct flowjit_event *ev = &d.recs[i].ev;

		/* only the child's records are kept */
		EXPECT_EQ(d.pid, ev->pid);
		EXPECT_LT(last_seq, ev->seq + (i == 0));
		EXPECT_LE(last_tsc, ev->tsc);
		last_seq = ev->seq;
		last_tsc = ev->tsc;
		if (ev->type != FLOWJIT_EV_EXEC || ev->addr != code)
			continue;
		EXPECT_EQ(code, ev->ip);
		ASSERT_NE(NULL, d.recs[i].page);
		EXPECT_EQ(0xb8, d.recs[i].page[0]);
		memcpy(&v, d.recs[i].page + 1, 4);
		EXPECT_EQ(1000u + exec, v);
		exec++;
	}
	EXPECT_EQ(40, exec);
	unload(&d);
}

/* A forked child of the command is recorded too, with its FORK record. */
TEST_F(tool, records_children)
{
	char *argv[] = { (char *)self->flowjit, "record", "-q", "-o", "/tmp/xf.fj", "--",
			 self_exe, "jitfork", "10", NULL };
	struct fjdata d;
	uint32_t child = 0;
	int i;

	ASSERT_EQ(0, run_status(argv));
	EXPECT_EQ(NULL, strstr(err, "wrote"));	/* -q */
	ASSERT_EQ(0, load("/tmp/xf.fj", &d));
	for (i = 0; i < d.n; i++)
		if (d.recs[i].ev.type == FLOWJIT_EV_FORK && d.recs[i].ev.aux == d.pid)
			child = d.recs[i].ev.pid;
	ASSERT_NE(0, child);
	EXPECT_LE(10, count(&d, FLOWJIT_EV_EXEC, d.pid));
	EXPECT_LE(10, count(&d, FLOWJIT_EV_EXEC, child));
	EXPECT_EQ(count(&d, FLOWJIT_EV_EXEC, 0),
		  count(&d, FLOWJIT_EV_EXEC, d.pid) + count(&d, FLOWJIT_EV_EXEC, child));
	unload(&d);
}

/*
 * A process that outlives the command (a shell's background job) is
 * recorded until it exits: flowjit waits for the last of them.
 */
/*
 * flowjit record in a container (as pid 1 of a pid namespace with its
 * own /proc) records its command and the child that forks, by the pids
 * they have there.
 */
TEST_F(tool, records_in_a_pid_namespace)
{
	char *argv[] = { self_exe, "inpidns", (char *)self->flowjit, "/tmp/ns.fj", NULL };
	struct fjdata d;
	uint32_t child = 0;
	int i;

	ASSERT_EQ(0, run_status(argv)) TH_LOG("%s", err);
	ASSERT_EQ(0, load("/tmp/ns.fj", &d));
	for (i = 0; i < d.n; i++)
		if (d.recs[i].ev.type == FLOWJIT_EV_FORK && d.recs[i].ev.aux == d.pid)
			child = d.recs[i].ev.pid;
	TH_LOG("pid %u, child %u; %d records, %d EXEC", d.pid, child, d.n,
	       count(&d, FLOWJIT_EV_EXEC, 0));
	EXPECT_NE(0, child);
	EXPECT_LE(10, count(&d, FLOWJIT_EV_EXEC, d.pid));
	EXPECT_LE(10, count(&d, FLOWJIT_EV_EXEC, child));
	unload(&d);
}

TEST_F(tool, records_descendants_until_the_last_exits)
{
	char cmd[PATH_MAX + 64];
	char *argv[] = { (char *)self->flowjit, "record", "-q", "-o", "/tmp/orphan.fj", "--",
			 "/bin/sh", "-c", cmd, NULL };
	struct fjdata d;
	int orphan;

	/* the job waits until its shell has gone, then writes 20 versions */
	snprintf(cmd, sizeof(cmd), "(sleep 1; exec %s jitslow 20) & exit 0", self_exe);
	unlink("/tmp/orphan.fj");
	ASSERT_EQ(0, run_status(argv)) TH_LOG("%s", err);
	ASSERT_EQ(0, load("/tmp/orphan.fj", &d));
	orphan = count(&d, FLOWJIT_EV_EXEC, 0) - count(&d, FLOWJIT_EV_EXEC, d.pid);
	TH_LOG("%d records, %d EXEC of the background job", d.n, orphan);
	EXPECT_LE(20, orphan);
	unload(&d);
}

/* --user: the command runs as that user, still recorded; a bad user is refused. */
TEST_F(tool, runs_the_command_as_another_user)
{
	char *id[] = { (char *)self->flowjit, "record", "-q", "-f", "-o", "/tmp/user.fj",
		       "--user", "nobody", "--", "/bin/busybox", "id", "-u", NULL };
	char *jit[] = { (char *)self->flowjit, "record", "-q", "-f", "-o", "/tmp/user.fj",
			"-u", "65534", "--", self_exe, "jit", "5", NULL };
	char *bad[] = { (char *)self->flowjit, "record", "-q", "-f", "-o", "/tmp/user.fj",
			"-u", "no-such-user", "--", "/bin/true", NULL };
	struct fjdata d;

	ASSERT_EQ(0, run_status(id)) TH_LOG("%s", err);
	EXPECT_STREQ("65534\n", out);
	ASSERT_EQ(0, run_status(jit)) TH_LOG("%s", err);
	ASSERT_EQ(0, load("/tmp/user.fj", &d));
	EXPECT_LE(5, count(&d, FLOWJIT_EV_EXEC, d.pid));
	unload(&d);
	EXPECT_EQ(125, run_status(bad));	/* flowjit could not record */
	EXPECT_NE(NULL, strstr(err, "no such user")) TH_LOG("%s", err);
}

TEST_F(tool, exit_status_is_the_commands)
{
	char *exit7[] = { (char *)self->flowjit, "record", "-q", "-o", "/tmp/x7.fj", "--",
			  self_exe, "jit", "2", "7", NULL };
	char *killed[] = { (char *)self->flowjit, "record", "-q", "-o", "/tmp/xk.fj", "--",
			   self_exe, "signal", "15", NULL };

	EXPECT_EQ(7, run_status(exit7));
	EXPECT_EQ(128 + SIGTERM, run_status(killed));
}

TEST_F(tool, report_summary_and_events)
{
	char *rec[] = { (char *)self->flowjit, "record", "-q", "-o", "/tmp/xr.fj", "--",
			self_exe, "jit", "25", "0", NULL };
	char *rep[] = { (char *)self->flowjit, "report", "/tmp/xr.fj", NULL };
	char *evs[] = { (char *)self->flowjit, "report", "--events", "/tmp/xr.fj", NULL };
	char line[128], *p;
	struct fjdata d;
	int lines = 0;

	ASSERT_EQ(0, run_status(rec));
	ASSERT_EQ(0, load("/tmp/xr.fj", &d));
	ASSERT_EQ(0, run_status(rep)) {
		TH_LOG("%s", err);
	}
	TH_LOG("report:\n%s", out);
	snprintf(line, sizeof(line), "  %-10s %12d\n", "EXEC", count(&d, FLOWJIT_EV_EXEC, 0));
	EXPECT_NE(NULL, strstr(out, line));
	snprintf(line, sizeof(line), "  %-10s %12d\n", "WRITE", count(&d, FLOWJIT_EV_WRITE, 0));
	EXPECT_NE(NULL, strstr(out, line));
	snprintf(line, sizeof(line), "records:      %d\n", d.n);
	EXPECT_NE(NULL, strstr(out, line));
	/* the JIT page: 25 versions, 24 changes of content */
	EXPECT_NE(NULL, strstr(out, "        25        24\n"));
	EXPECT_NE(NULL, strstr(out, "drops:        none"));
	EXPECT_NE(NULL, strstr(out, " ns ("));
	ASSERT_EQ(0, run_status(evs));
	for (p = out; (p = strchr(p, '\n')); p++)
		lines++;
	EXPECT_EQ(d.n + 1, lines);
	EXPECT_NE(NULL, strstr(out, " EXEC "));
	EXPECT_NE(NULL, strstr(out, " snapshot"));
	unload(&d);
}

/*
 * Code written through another mapping, in a page pinned for the kernel:
 * the report counts the snapshots that cannot be trusted, the events
 * name the writes "alias" and the snapshots "pinned".
 */
TEST_F(tool, report_names_aliased_writes_and_pinned_pages)
{
	char *rec[] = { (char *)self->flowjit, "record", "-q", "-o", "/tmp/xp.fj", "--",
			self_exe, "pinned", "5", NULL };
	char *rep[] = { (char *)self->flowjit, "report", "/tmp/xp.fj", NULL };
	char *evs[] = { (char *)self->flowjit, "report", "--events", "/tmp/xp.fj", NULL };
	int st = run_status(rec);

	if (st == 77)
		SKIP(return, "no io_uring in this kernel");
	ASSERT_EQ(0, st);
	ASSERT_EQ(0, run_status(rep));
	EXPECT_NE(NULL, strstr(out, "pinned:       5 snapshots")) TH_LOG("%s", out);
	ASSERT_EQ(0, run_status(evs));
	EXPECT_NE(NULL, strstr(out, " snapshot pinned\n"));
	EXPECT_NE(NULL, strstr(out, " by-user alias\n"));
}

/* Bad use: clear messages, non-zero status. */
TEST_F(tool, bad_use)
{
	char *nocmd[] = { (char *)self->flowjit, "record", "-o", "/tmp/xb.fj", NULL };
	char *badout[] = { (char *)self->flowjit, "record", "-o", "/nonexistent/x.fj", "--",
			   "/bin/true", NULL };
	char *nopid[] = { (char *)self->flowjit, "record", "-o", "/tmp/xb.fj", "-p",
			  "999999", NULL };
	char *noexe[] = { (char *)self->flowjit, "record", "-q", "-o", "/tmp/xb.fj", "--",
			  "/nonexistent-program", NULL };
	char *norep[] = { (char *)self->flowjit, "report", "/tmp/nonexistent.fj", NULL };
	char *notfj[] = { (char *)self->flowjit, "report", self_exe, NULL };

	EXPECT_NE(0, run_status(nocmd));
	EXPECT_NE(NULL, strstr(err, "flowjit: record: no command to run"));
	EXPECT_NE(0, run_status(badout));
	EXPECT_NE(NULL, strstr(err, "flowjit: --output: cannot create '/nonexistent/x.fj': No such file or directory"));
	EXPECT_NE(0, run_status(nopid));
	EXPECT_NE(NULL, strstr(err, "flowjit: -p: no process 999999: No such process"));
	EXPECT_EQ(127, run_status(noexe));
	EXPECT_NE(NULL, strstr(err, "flowjit: cannot run '/nonexistent-program': No such file or directory"));
	EXPECT_NE(0, run_status(norep));
	EXPECT_NE(NULL, strstr(err, "cannot read '/tmp/nonexistent.fj': No such file or directory"));
	EXPECT_NE(0, run_status(notfj));
	EXPECT_NE(NULL, strstr(err, "bad file format"));
	TH_LOG("last error: %s", err);
}

/*
 * The data file holds the recorded process' memory: created 0600 (not
 * 0666 & ~umask); an existing file is kept unless --force; a symbolic
 * link there is not followed, --force or not (a recorder run as root in
 * a directory others write to).
 */
TEST_F(tool, output_is_private_and_not_written_through_a_link)
{
	char *rec[] = { (char *)self->flowjit, "record", "-q", "-o", "/tmp/xo.fj", "--",
			"/bin/true", NULL };
	char *force[] = { (char *)self->flowjit, "record", "-q", "-f", "-o", "/tmp/xo.fj", "--",
			  "/bin/true", NULL };
	char *link[] = { (char *)self->flowjit, "record", "-q", "-f", "-o", "/tmp/xl.fj", "--",
			 "/bin/true", NULL };
	struct stat st;
	mode_t mask = umask(0);

	EXPECT_EQ(0, run_status(rec));
	umask(mask);
	ASSERT_EQ(0, stat("/tmp/xo.fj", &st));
	EXPECT_EQ(0600, st.st_mode & 0777);
	/* again: the file is there */
	EXPECT_NE(0, run_status(rec));
	EXPECT_NE(NULL, strstr(err, "cannot create '/tmp/xo.fj': File exists (--force replaces it)"));
	EXPECT_EQ(0, run_status(force));
	/* a link to a file the recorder must not touch */
	ASSERT_EQ(0, close(open("/tmp/victim", O_WRONLY | O_CREAT | O_TRUNC, 0644)));
	ASSERT_EQ(0, symlink("/tmp/victim", "/tmp/xl.fj"));
	EXPECT_NE(0, run_status(link));
	EXPECT_NE(NULL, strstr(err, "(a symbolic link, not followed)"));
	ASSERT_EQ(0, stat("/tmp/victim", &st));
	EXPECT_EQ(0, st.st_size);
	unlink("/tmp/xl.fj");
	unlink("/tmp/victim");
}

/* A recording cut short is refused, not half read. */
TEST_F(tool, truncated_file_is_refused)
{
	char *rec[] = { (char *)self->flowjit, "record", "-q", "-o", "/tmp/xt.fj", "--",
			self_exe, "jit", "5", "0", NULL };
	char *rep[] = { (char *)self->flowjit, "report", "/tmp/xt.fj", NULL };
	struct stat st;

	ASSERT_EQ(0, run_status(rec));
	ASSERT_EQ(0, stat("/tmp/xt.fj", &st));
	ASSERT_EQ(0, truncate("/tmp/xt.fj", st.st_size - 100));
	EXPECT_EQ(1, run_status(rep));
	EXPECT_NE(NULL, strstr(err, "file is truncated"));
}

/* -p: attach to a running process, stop when it exits. */
TEST_F(tool, attach_to_pid)
{
	char pidstr[16];
	char *rec[] = { (char *)self->flowjit, "record", "-q", "-o", "/tmp/xp.fj", "-p",
			pidstr, NULL };
	struct fjdata d;
	int status;
	pid_t jit = fork();

	ASSERT_LE(0, jit);
	if (jit == 0) {
		execl(self_exe, self_exe, "jitslow", "200", NULL);
		_exit(127);
	}
	snprintf(pidstr, sizeof(pidstr), "%d", jit);
	/* returns when the JIT ends, about 2 s in */
	EXPECT_EQ(0, run_status(rec));
	TH_LOG("%s", err);
	ASSERT_EQ(jit, waitpid(jit, &status, 0));
	EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	ASSERT_EQ(0, load("/tmp/xp.fj", &d));
	EXPECT_EQ((uint32_t)jit, d.pid);
	EXPECT_EQ(1, count(&d, FLOWJIT_EV_TRACK, jit));
	EXPECT_LT(10, count(&d, FLOWJIT_EV_EXEC, jit));
	EXPECT_EQ(1, count(&d, FLOWJIT_EV_UNTRACK, jit));
	unload(&d);
}

/* LuaJIT under flowjit: same output, code snapshots of its traces. */
TEST_F(tool, luajit)
{
	const char *script = "local s = 0 for i = 1, 300000 do s = s + (i % 7) * 3 end "
			     "local function f(x) return x * 2 + 1 end "
			     "local t = 0 for i = 1, 100000 do t = t + f(i) % 13 end "
			     "print(s, t)";
	char *plain[] = { "/usr/bin/luajit", "-e", (char *)script, NULL };
	char *rec[] = { (char *)self->flowjit, "record", "-o", "/tmp/l.fj", "--",
			"/usr/bin/luajit", "-e", (char *)script, NULL };
	static char expect[sizeof(out)];
	struct fjdata d;

	ASSERT_PROGRAM("/usr/bin/luajit");
	ASSERT_EQ(0, run_status(plain));
	memcpy(expect, out, sizeof(out));
	ASSERT_NE(0, strlen(expect));
	ASSERT_EQ(0, run_status(rec));
	TH_LOG("luajit printed '%s'; flowjit: %s", expect, err);
	EXPECT_STREQ(expect, out);
	ASSERT_EQ(0, load("/tmp/l.fj", &d));
	EXPECT_LT(0, count(&d, FLOWJIT_EV_EXEC, d.pid));
	EXPECT_LT(0, count(&d, FLOWJIT_EV_MPROTECT, d.pid));
	EXPECT_EQ(0, count(&d, FLOWJIT_EV_LOST, 0));
	TH_LOG("luajit: %d records, %d EXEC", d.n, count(&d, FLOWJIT_EV_EXEC, d.pid));
	unload(&d);
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/*
 * Run the runtime's command @argv plainly, then under "flowjit record -o
 * @file": the same output, exit status 0 both times; the file loaded
 * into @d. Then plainly again, warm as the recorded run was: the times
 * of the last plain run and the recorded one (TCG seconds) in @secs.
 */
#define RUN_TRACKED(argv, file, d, secs) do {					\
	static char expect_[sizeof(out)];					\
	char *rec_[32] = { (char *)self->flowjit, "record", "-o", (file), "--" };	\
	double t0_;								\
	int i_;									\
										\
	for (i_ = 0; (argv)[i_]; i_++)						\
		rec_[5 + i_] = (argv)[i_];					\
	unlink(file);								\
	ASSERT_EQ(0, run_status(argv)) TH_LOG("%s: %s", (argv)[0], err);	\
	memcpy(expect_, out, sizeof(out));					\
	ASSERT_NE(0, strlen(expect_));						\
	t0_ = now_s();								\
	ASSERT_EQ(0, run_status(rec_)) TH_LOG("flowjit: %s", err);		\
	(secs)[1] = now_s() - t0_;						\
	EXPECT_STREQ(expect_, out);						\
	ASSERT_EQ(0, load(file, d));						\
	t0_ = now_s();								\
	ASSERT_EQ(0, run_status(argv)) TH_LOG("%s: %s", (argv)[0], err);	\
	(secs)[0] = now_s() - t0_;						\
} while (0)

/*
 * Node.js (V8) under flowjit: the same output, snapshots of the code its
 * compilers write, nothing lost.
 */
TEST_F(tool, nodejs)
{
	char *argv[] = { "/usr/bin/node", "-e",
			 "function f(x) { return (x * 3 + 1) % 7; } "
			 "let s = 0; for (let i = 0; i < 3000000; i++) s += f(i); "
			 "console.log(s);", NULL };
	struct fjdata d;
	double secs[2];

	ASSERT_PROGRAM("/usr/bin/node");
	RUN_TRACKED(argv, "/tmp/node.fj", &d, secs);
	TH_LOG("node printed %s; %d records, %d EXEC, %d WRITE; %.2f s plain, %.2f s tracked (%.2f)",
	       strtok(out, "\n"), d.n, count(&d, FLOWJIT_EV_EXEC, d.pid),
	       count(&d, FLOWJIT_EV_WRITE, d.pid), secs[0], secs[1], secs[1] / secs[0]);
	EXPECT_LT(0, count(&d, FLOWJIT_EV_EXEC, d.pid));
	EXPECT_EQ(0, count(&d, FLOWJIT_EV_LOST, 0));
	unload(&d);
}

/*
 * PHP 8.2 with opcache's tracing JIT, whose buffer is in opcache's
 * shared memory, flipped RW and RX with mprotect(): the same output,
 * snapshots of its traces. Opcache compiles files, not -r code, and by
 * default not a file modified in the last 2 seconds
 * (opcache.file_update_protection): the script says whether its loop
 * was compiled, so that a run PHP did not JIT fails as such.
 */
TEST_F(tool, php_opcache_jit)
{
	static const char script[] =
		"<?php\n"
		"function f($x) { return ($x * 3 + 1) % 7; }\n"
		"$s = 0;\n"
		"$free = opcache_get_status(false)['jit']['buffer_free'];\n"
		"for ($i = 0; $i < 3000000; $i++) { $s += f($i); }\n"
		"echo $s, \"\\n\";\n"
		"echo opcache_get_status(false)['jit']['buffer_free'] < $free ?\n"
		"     \"traces compiled\\n\" : \"nothing compiled\\n\";\n";
	char *argv[] = { "/usr/bin/php", "-n", "-d", "display_startup_errors=0",
			 "-d", "zend_extension=opcache", "-d", "opcache.enable_cli=1",
			 "-d", "opcache.jit=tracing", "-d", "opcache.jit_buffer_size=32M",
			 "-d", "opcache.file_update_protection=0",
			 "/tmp/jit.php", NULL };
	struct fjdata d;
	double secs[2];
	int fd;

	ASSERT_PROGRAM("/usr/bin/php");
	fd = open("/tmp/jit.php", O_WRONLY | O_CREAT | O_TRUNC, 0644);
	ASSERT_LE(0, fd);
	ASSERT_EQ((ssize_t)strlen(script), write(fd, script, strlen(script)));
	close(fd);
	RUN_TRACKED(argv, "/tmp/php.fj", &d, secs);
	ASSERT_NE(NULL, strstr(out, "traces compiled")) TH_LOG("php: %s", out);
	TH_LOG("php printed %s; %d records, %d EXEC, %d MPROTECT; %.2f s plain, %.2f s tracked (%.2f)",
	       strtok(out, "\n"), d.n, count(&d, FLOWJIT_EV_EXEC, d.pid),
	       count(&d, FLOWJIT_EV_MPROTECT, d.pid), secs[0], secs[1], secs[1] / secs[0]);
	EXPECT_LT(0, count(&d, FLOWJIT_EV_EXEC, d.pid));
	EXPECT_LT(0, count(&d, FLOWJIT_EV_MPROTECT, d.pid));
	EXPECT_EQ(0, count(&d, FLOWJIT_EV_LOST, 0));
	unload(&d);
}

/*
 * OpenJDK 17 (HotSpot), from the host through a 9p share (see
 * scripts/qemu-run.sh): its template interpreter and the methods its
 * compilers compile at startup, written into its code cache: the same
 * output (its final flags; with no class-data sharing, whose mapping
 * address is random and printed) tracked and untracked, snapshots of
 * that code, nothing lost.
 */
TEST_F(tool, hotspot)
{
	char *argv[] = { "/usr/lib/jvm/java-17-openjdk-amd64/bin/java", "-Xshare:off", "-XX:+UseSerialGC",
			 "-XX:+PrintFlagsFinal", "-version", NULL };
	struct fjdata d;
	double secs[2];

	ASSERT_PROGRAM("/usr/lib/jvm/java-17-openjdk-amd64/bin/java");
	RUN_TRACKED(argv, "/tmp/java.fj", &d, secs);
	TH_LOG("java: %d records, %d EXEC, %d WRITE, %d MPROTECT; %.2f s plain, %.2f s tracked (%.2f)",
	       d.n, count(&d, FLOWJIT_EV_EXEC, d.pid), count(&d, FLOWJIT_EV_WRITE, d.pid),
	       count(&d, FLOWJIT_EV_MPROTECT, d.pid), secs[0], secs[1], secs[1] / secs[0]);
	EXPECT_LT(10, count(&d, FLOWJIT_EV_EXEC, d.pid));
	EXPECT_EQ(0, count(&d, FLOWJIT_EV_LOST, 0));
	unload(&d);
}

TEST_HARNESS_MAIN
