// SPDX-License-Identifier: GPL-2.0
/*
 * FlowJIT and the paths that set page permissions besides mmap() and
 * mprotect(): huge pages of shmem, userfaultfd write protection, brk()
 * of an executable heap, special mappings (the vDSO) made by execve().
 * Each must leave a tracked page non-executable until its code has been
 * logged. And the secondary MMUs that share the page tables (KVM, SVA
 * IOMMUs) must be told of every flip (CONFIG_FLOWJIT_TEST's notifier).
 */
#define _GNU_SOURCE
#include <linux/userfaultfd.h>
#include <sys/auxv.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/personality.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>

#include "guest_harness.h"
#include "flowjit_util.h"

#define PAGE	4096UL
#define HPAGE	(2UL << 20)
#define SHMEM_ENABLED "/sys/kernel/mm/transparent_hugepage/shmem_enabled"

typedef int (*jit_fn)(void);

static struct fj_rec recs[FJ_MAX_EVENTS];

/* EXEC events of @pid (0: any) for pages in [start, start + len). */
static int count_exec(pid_t pid, uintptr_t start, uintptr_t len)
{
	int i, n = fj_drain(recs, FJ_MAX_EVENTS), c = 0;

	for (i = 0; i < n; i++) {
		struct flowjit_event *ev = &recs[i].ev;

		if (ev->type == FLOWJIT_EV_EXEC && (!pid || (pid_t)ev->pid == pid) &&
		    ev->addr >= start && ev->addr < start + len)
			c++;
	}
	return n < 0 ? n : c;
}

static long meminfo_kb(const char *field)
{
	char buf[8192], *p;

	file_read("/proc/meminfo", buf, sizeof(buf));
	p = strstr(buf, field);
	return p ? strtol(p + strlen(field) + 1, NULL, 10) : -1;
}

FIXTURE(fj) {
	char shmem_enabled[32];
};

FIXTURE_SETUP(fj)
{
	char buf[256], *l, *r;

	ASSERT_EQ(0, access("/proc/flowjit/control", F_OK));
	ASSERT_EQ(0, fj_control("bufsize 8388608"));
	ASSERT_EQ(0, fj_reset());
	/* "always within_size advise [never] deny force" */
	file_read(SHMEM_ENABLED, buf, sizeof(buf));
	l = strchr(buf, '[');
	r = l ? strchr(l, ']') : NULL;
	ASSERT_TRUE(l && r && r - l - 1 < (long)sizeof(self->shmem_enabled));
	snprintf(self->shmem_enabled, sizeof(self->shmem_enabled), "%.*s",
		 (int)(r - l - 1), l + 1);
}

FIXTURE_TEARDOWN(fj)
{
	proc_write(SHMEM_ENABLED, self->shmem_enabled);
}

/*
 * Run @code (which returns @want); SIGALRM ends the test if the fetch
 * never gets through, as when a huge page is mapped again after every
 * split. Returns 0 if the code ran and returned @want.
 */
static int run_with_deadline(unsigned char *code, int want)
{
	int ret;

	alarm(10 * guest_time_scale());
	ret = ((jit_fn)code)();
	alarm(0);
	return ret == want ? 0 : 1;
}

/* An RWX shared mapping whose pages shmem allocates huge. */
TEST_F(fj, shmem_huge_page_rwx_runs)
{
	long before;
	unsigned char *p;

	ASSERT_EQ(0, proc_write(SHMEM_ENABLED, "always"));
	ASSERT_EQ(0, fj_enable(0));
	before = meminfo_kb("ShmemHugePages:");
	p = mmap(NULL, HPAGE, PROT_READ | PROT_WRITE | PROT_EXEC,
		 MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, p);
	ASSERT_EQ(0, (uintptr_t)p & (HPAGE - 1));
	emit_ret_imm(p, 7);
	/* otherwise the test would not test what it says */
	ASSERT_LT(before, meminfo_kb("ShmemHugePages:"));
	EXPECT_EQ(0, run_with_deadline(p, 7));
	EXPECT_EQ(1, count_exec(0, (uintptr_t)p, PAGE));
	munmap(p, HPAGE);
}

/* Read-only executable shmem (a memfd) tracked with FLOWJIT_F_ALL_EXEC. */
TEST_F(fj, shmem_huge_page_all_exec_text_runs)
{
	unsigned char code[6];
	unsigned char *p;
	long before;
	int fd;

	ASSERT_EQ(0, proc_write(SHMEM_ENABLED, "always"));
	fd = memfd_create("flowjit-text", 0);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, ftruncate(fd, HPAGE));
	before = meminfo_kb("ShmemHugePages:");
	emit_ret_imm(code, 9);
	ASSERT_EQ(6, pwrite(fd, code, 6, 0));
	ASSERT_LT(before, meminfo_kb("ShmemHugePages:"));
	ASSERT_EQ(0, fj_enable(FLOWJIT_F_ALL_EXEC));
	p = mmap(NULL, HPAGE, PROT_READ | PROT_EXEC, MAP_SHARED, fd, 0);
	ASSERT_NE(MAP_FAILED, p);
	ASSERT_EQ(0, (uintptr_t)p & (HPAGE - 1));
	EXPECT_EQ(0, run_with_deadline(p, 9));
	EXPECT_EQ(1, count_exec(0, (uintptr_t)p, PAGE));
	munmap(p, HPAGE);
	close(fd);
}

static int uffd_wp(int uffd, void *addr, int on)
{
	struct uffdio_writeprotect wp = {
		.range = { (uintptr_t)addr, PAGE },
		.mode = on ? UFFDIO_WRITEPROTECT_MODE_WP : 0,
	};

	return ioctl(uffd, UFFDIO_WRITEPROTECT, &wp);
}

/*
 * Write protecting a page with userfaultfd and releasing it again must
 * not make new code executable behind FlowJIT's back.
 */
TEST_F(fj, uffd_writeprotect_keeps_new_code_logged)
{
	struct uffdio_api api = {
		.api = UFFD_API, .features = UFFD_FEATURE_PAGEFAULT_FLAG_WP,
	};
	struct uffdio_register reg = { .mode = UFFDIO_REGISTER_MODE_WP };
	unsigned char *code;
	int uffd;

	ASSERT_EQ(0, fj_enable(0));
	code = mmap(NULL, PAGE, PROT_READ | PROT_WRITE | PROT_EXEC,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, code);
	uffd = syscall(SYS_userfaultfd, O_CLOEXEC | O_NONBLOCK);
	ASSERT_LE(0, uffd);
	ASSERT_EQ(0, ioctl(uffd, UFFDIO_API, &api));
	reg.range.start = (uintptr_t)code;
	reg.range.len = PAGE;
	ASSERT_EQ(0, ioctl(uffd, UFFDIO_REGISTER, &reg));

	emit_ret_imm(code, 1);
	ASSERT_EQ(1, ((jit_fn)code)());
	emit_ret_imm(code, 2);		/* page now W/NX, version 2 not run */
	ASSERT_EQ(0, uffd_wp(uffd, code, 1));
	ASSERT_EQ(0, uffd_wp(uffd, code, 0));
	ASSERT_EQ(2, ((jit_fn)code)());
	/* one EXEC per version run */
	EXPECT_EQ(2, count_exec(getpid(), (uintptr_t)code, PAGE));
	close(uffd);
	munmap(code, PAGE);
}

/*
 * Counts of the test-only secondary MMU: "protect N\ninvalidate N\n
 * revoked TSC\n" (@revoked may be NULL).
 */
static int notifier_counts(int fd, int *protect, int *invalidate, unsigned long long *revoked)
{
	unsigned long long r;
	char buf[128];
	ssize_t n = pread(fd, buf, sizeof(buf) - 1, 0);

	if (n <= 0)
		return -1;
	buf[n] = '\0';
	if (sscanf(buf, "protect %d invalidate %d revoked %llu", protect, invalidate, &r) != 3)
		return -1;
	if (revoked)
		*revoked = r;
	return 0;
}

/* The timestamps of @pid's EXEC records of the page at @addr (at most @max). */
static int exec_times(pid_t pid, uintptr_t addr, unsigned long long *tsc, int max)
{
	int i, n = fj_drain(recs, FJ_MAX_EVENTS), c = 0;

	for (i = 0; i < n; i++)
		if (recs[i].ev.type == FLOWJIT_EV_EXEC && (pid_t)recs[i].ev.pid == pid &&
		    recs[i].ev.addr == addr && c < max)
			tsc[c++] = recs[i].ev.tsc;
	return n < 0 ? n : c;
}

/*
 * A secondary MMU (CONFIG_FLOWJIT_TEST's debugfs notifier) is told of
 * every flip of a tracked page: each flip to X/RO is an MMU notifier
 * range of MMU_NOTIFY_PROTECTION_PAGE (whose end invalidates once), each
 * flip to W/NX an invalidation of its own. Three versions run: three
 * flips to X/RO, two to W/NX (the first write is the page's first
 * fault, not a flip). A secondary MMU that only caches translations (an
 * IOMMU with invalidate_range() alone) loses write access to the page
 * before its snapshot is taken, not after: no write of a device can
 * come between.
 */
TEST_F(fj, secondary_mmus_are_told_of_every_flip)
{
	int fd, v, protect = -1, invalidate = -1;
	unsigned long long revoked[3], exec[3];
	unsigned char *code;
	char addr[32];

	fd = open("/sys/kernel/debug/flowjit/notifier", O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, fd) TH_LOG("no test notifier (CONFIG_FLOWJIT_TEST): %m");
	ASSERT_EQ(0, fj_enable(0));
	code = mmap(NULL, PAGE, PROT_READ | PROT_WRITE | PROT_EXEC,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, code);
	snprintf(addr, sizeof(addr), "%lx", (unsigned long)code);
	ASSERT_EQ((ssize_t)strlen(addr), write(fd, addr, strlen(addr)));
	for (v = 1; v <= 3; v++) {
		emit_ret_imm(code, v);
		ASSERT_EQ(v, ((jit_fn)code)());
		ASSERT_EQ(0, notifier_counts(fd, &protect, &invalidate, &revoked[v - 1]));
	}
	ASSERT_EQ(3, exec_times(getpid(), (uintptr_t)code, exec, 3));
	EXPECT_EQ(3, protect) TH_LOG("flips to X/RO the secondary MMU was told of");
	EXPECT_EQ(3 + 2, invalidate) TH_LOG("invalidations: 3 flips to X/RO, 2 to W/NX");
	for (v = 0; v < 3; v++) {
		EXPECT_LT(revoked[v], exec[v])
			TH_LOG("version %d: write access revoked %lld ticks after the snapshot",
			       v + 1, (long long)(revoked[v] - exec[v]));
		if (v)
			EXPECT_LT(exec[v - 1], revoked[v]);
	}
	munmap(code, PAGE);
	close(fd);
}

/* brk() of a READ_IMPLIES_EXEC process makes an executable heap. */
TEST_F(fj, brk_heap_made_executable_is_tracked)
{
	unsigned char *cur, *code;

	ASSERT_EQ(0, fj_enable(0));
	ASSERT_LE(0, personality(READ_IMPLIES_EXEC));
	cur = sbrk(0);
	ASSERT_NE((void *)-1, sbrk(3 * PAGE));
	/* the first page wholly in the new (executable) part of the heap */
	code = (unsigned char *)(((uintptr_t)cur + PAGE - 1) & ~(PAGE - 1));
	emit_ret_imm(code, 5);
	ASSERT_EQ(5, ((jit_fn)code)());
	EXPECT_EQ(1, count_exec(getpid(), (uintptr_t)code, PAGE));
	ASSERT_NE((void *)-1, sbrk(-3 * (long)PAGE));
}

/*
 * The vDSO that execve() maps into a process tracked with
 * FLOWJIT_F_ALL_EXEC is tracked like the program's own text.
 */
TEST_F(fj, vdso_after_execve_is_tracked_with_all_exec)
{
	uintptr_t vdso;
	int p[2];
	pid_t child;
	char fd[16];

	ASSERT_EQ(0, pipe(p));
	child = fork();
	ASSERT_LE(0, child);
	if (child == 0) {
		close(p[0]);
		if (fj_enable(FLOWJIT_F_ALL_EXEC))
			_exit(10);
		snprintf(fd, sizeof(fd), "%d", p[1]);
		execl("/proc/self/exe", "flowjit_paths", "--vdso-report", fd, NULL);
		_exit(11);
	}
	close(p[1]);
	ASSERT_EQ((ssize_t)sizeof(vdso), read(p[0], &vdso, sizeof(vdso)));
	close(p[0]);
	ASSERT_EQ(0, wait_exit_code(child));
	ASSERT_NE(0, vdso);
	/* the vDSO's text: its image is two pages or less on x86-64 */
	EXPECT_LE(1, count_exec(child, vdso, 2 * PAGE));
}

/* "--vdso-report FD": call into the vDSO, write its address to FD. */
static int vdso_report(const char *fd)
{
	uintptr_t vdso = getauxval(AT_SYSINFO_EHDR);
	struct timespec ts;
	int i;

	for (i = 0; i < 3; i++)
		clock_gettime(CLOCK_MONOTONIC, &ts);
	return write(atoi(fd), &vdso, sizeof(vdso)) == sizeof(vdso) ? 0 : 1;
}

int main(int argc, char **argv)
{
	if (argc > 2 && !strcmp(argv[1], "--vdso-report"))
		return vdso_report(argv[2]);
	return guest_harness_run(argc, argv);
}
