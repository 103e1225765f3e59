// SPDX-License-Identifier: GPL-2.0
/*
 * FlowJIT's interface as other users and other processes see it: prctl
 * values and flags, the pids /proc/flowjit/status shows in a pid
 * namespace, writes into a tracked process from another one, and
 * execve() of a set-user-ID program by a tracked process.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <linux/userfaultfd.h>

#include "guest_harness.h"
#include "flowjit_util.h"

#define PAGE 4096
#define SUID_COPY "/tmp/flowjit_access_suid"

typedef int (*jit_fn)(void);

static struct fj_rec recs[FJ_MAX_EVENTS];

/* prctl() as the system call returns it, without libc's int. */
static long fj_get(void)
{
	return syscall(SYS_prctl, PR_FLOWJIT, FLOWJIT_OP_GET, 0, 0, 0);
}

FIXTURE(fj) {
	int dummy;
};

FIXTURE_SETUP(fj)
{
	ASSERT_EQ(0, access("/proc/flowjit/control", F_OK));
	ASSERT_EQ(0, fj_control("bufsize 8388608"));
	ASSERT_EQ(0, fj_reset());
}

FIXTURE_TEARDOWN(fj)
{
}

/* FLOWJIT_OP_GET's value is not mistaken for an error by its caller. */
TEST_F(fj, get_returns_a_positive_value)
{
	long v;

	ASSERT_EQ(0, fj_enable(FLOWJIT_F_INHERIT | FLOWJIT_F_ALL_EXEC));
	v = fj_get();
	EXPECT_LT(0, v);
	EXPECT_EQ((long)(FLOWJIT_F_TRACKED | FLOWJIT_F_INHERIT | FLOWJIT_F_ALL_EXEC), v);
	EXPECT_LT(0, prctl(PR_FLOWJIT, FLOWJIT_OP_GET, 0, 0, 0));
	ASSERT_EQ(0, fj_disable());
	EXPECT_EQ(0, fj_get());
}

/* Flags are checked as the 64-bit values prctl() passes. */
TEST_F(fj, enable_rejects_flags_above_bit_31)
{
	EXPECT_EQ(-EINVAL, fj_enable(1UL << 32));
	EXPECT_EQ(-EINVAL, fj_enable((1UL << 63) | FLOWJIT_F_INHERIT));
	EXPECT_EQ(0, fj_get());
}

/* Does /proc/flowjit/status list "pid PID flags"? */
static int status_lists(pid_t pid)
{
	char buf[4096], line[64];

	file_read("/proc/flowjit/status", buf, sizeof(buf));
	snprintf(line, sizeof(line), " pid %d flags ", pid);
	return strstr(buf, line) != NULL;
}

/*
 * In the child of a new pid namespace, with its own /proc: exit 0 if the
 * status file lists itself as pid 1 and not the tracked process @outer,
 * whose pid means nothing (or someone else) there.
 */
static int status_in_new_pidns(pid_t outer)
{
	pid_t inner;

	if (unshare(CLONE_NEWPID | CLONE_NEWNS))
		return 10;
	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL))
		return 11;
	inner = fork();
	if (inner < 0)
		return 12;
	if (inner == 0) {
		if (getpid() != 1)
			_exit(13);
		if (mount("proc", "/proc", "proc", 0, NULL))
			_exit(14);
		if (fj_enable(0))
			_exit(15);
		if (!status_lists(1))
			_exit(1);
		if (status_lists(outer))
			_exit(2);
		_exit(0);
	}
	return wait_exit_code(inner);
}

/* A pid namespace sees its own pids and nothing of other namespaces. */
TEST_F(fj, status_shows_pids_of_the_readers_namespace)
{
	pid_t child;

	ASSERT_EQ(0, fj_enable(0));
	ASSERT_TRUE(status_lists(getpid()));
	child = fork();
	ASSERT_LE(0, child);
	if (child == 0)
		_exit(status_in_new_pidns(getppid()));
	EXPECT_EQ(0, wait_exit_code(child));
	ASSERT_EQ(0, fj_disable());
}

/*
 * Who is tracked is the business of those who may read the process'
 * memory maps: a user reading the status file sees its own tracked
 * processes, not root's.
 */
TEST_F(fj, status_lists_only_processes_the_reader_may_trace)
{
	pid_t child;

	ASSERT_EQ(0, fj_enable(0));
	ASSERT_TRUE(status_lists(getpid()));
	child = fork();
	ASSERT_LE(0, child);
	if (child == 0) {
		if (setgid(65534) || setuid(65534) || fj_enable(0))
			_exit(10);
		if (!status_lists(getpid()))
			_exit(1);
		_exit(status_lists(getppid()) ? 2 : 0);
	}
	EXPECT_EQ(0, wait_exit_code(child))
		TH_LOG("1: nobody's own process not listed; 2: root's listed to nobody");
	ASSERT_EQ(0, fj_disable());
}

/*
 * A write into a tracked process' code through /proc/PID/mem (the path
 * of ptrace and debuggers) is the target's WRITE event: logged under its
 * pid, flagged remote, with the writer's pid in aux.
 */
TEST_F(fj, remote_write_is_logged_under_the_target)
{
	int ready[2], go[2], i, n, writes = 0, own = 0;
	uint32_t v = 2;
	unsigned char *code;
	char path[64], c;
	pid_t child;
	int fd;

	ASSERT_EQ(0, pipe(ready));
	ASSERT_EQ(0, pipe(go));
	child = fork();
	ASSERT_LE(0, child);
	if (child == 0) {
		if (fj_enable(0))
			_exit(10);
		code = mmap(NULL, PAGE, PROT_READ | PROT_WRITE | PROT_EXEC,
			    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (code == MAP_FAILED)
			_exit(11);
		emit_ret_imm(code, 1);
		if (((jit_fn)code)() != 1)
			_exit(12);
		if (write(ready[1], &code, sizeof(code)) != sizeof(code) ||
		    read(go[0], &c, 1) != 1)
			_exit(13);
		_exit(((jit_fn)code)() == 2 ? 0 : 1);
	}
	ASSERT_EQ((ssize_t)sizeof(code), read(ready[0], &code, sizeof(code)));
	snprintf(path, sizeof(path), "/proc/%d/mem", child);
	fd = open(path, O_RDWR);
	ASSERT_LE(0, fd);
	EXPECT_EQ(4, pwrite(fd, &v, 4, (uintptr_t)code + 1));
	close(fd);
	ASSERT_EQ(1, write(go[1], "g", 1));
	EXPECT_EQ(0, wait_exit_code(child));

	n = fj_drain(recs, FJ_MAX_EVENTS);
	ASSERT_LT(0, n);
	for (i = 0; i < n; i++) {
		struct flowjit_event *ev = &recs[i].ev;

		if (ev->type != FLOWJIT_EV_WRITE || ev->addr != (uintptr_t)code)
			continue;
		if ((pid_t)ev->pid == getpid())
			own++;
		if ((pid_t)ev->pid != child)
			continue;
		writes++;
		EXPECT_TRUE(ev->flags & FLOWJIT_EVF_KERNEL);
		EXPECT_TRUE(ev->flags & FLOWJIT_EVF_REMOTE);
		EXPECT_EQ((uint64_t)getpid(), ev->aux);
		EXPECT_EQ(0, ev->ip);
	}
	EXPECT_EQ(1, writes);
	EXPECT_EQ(0, own);
}

/*
 * A JIT that writes its code, makes it read-only and executable
 * (mprotect RX), then patches it the way a debugger sets a breakpoint:
 * through /proc/PID/mem (FOLL_FORCE) from itself (@remote false) or
 * from its parent. The page is the process' own (anonymous,
 * exclusive), so the kernel may write it without a write fault; the
 * patch must still be a WRITE event, and the next run a new snapshot.
 */
static void forced_write_into_rx_code(struct __test_metadata *_metadata, bool remote)
{
	int ready[2], go[2], i, n, writes = 0, execs = 0, fresh = 0;
	unsigned char *code;
	uint32_t v = 2;
	char path[64], c;
	pid_t child;
	int fd;

	ASSERT_EQ(0, pipe(ready));
	ASSERT_EQ(0, pipe(go));
	child = fork();
	ASSERT_LE(0, child);
	if (child == 0) {
		if (fj_enable(0))
			_exit(10);
		code = mmap(NULL, PAGE, PROT_READ | PROT_WRITE,
			    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (code == MAP_FAILED)
			_exit(11);
		emit_ret_imm(code, 1);
		if (mprotect(code, PAGE, PROT_READ | PROT_EXEC) ||
		    ((jit_fn)code)() != 1)
			_exit(12);
		if (!remote) {
			fd = open("/proc/self/mem", O_RDWR);
			if (fd < 0 || pwrite(fd, &v, 4, (uintptr_t)code + 1) != 4)
				_exit(13);
			close(fd);
		} else if (write(ready[1], &code, sizeof(code)) != sizeof(code) ||
			   read(go[0], &c, 1) != 1) {
			_exit(14);
		}
		_exit(((jit_fn)code)() == 2 ? 0 : 1);
	}
	if (remote) {
		ASSERT_EQ((ssize_t)sizeof(code), read(ready[0], &code, sizeof(code)));
		snprintf(path, sizeof(path), "/proc/%d/mem", child);
		fd = open(path, O_RDWR);
		ASSERT_LE(0, fd);
		EXPECT_EQ(4, pwrite(fd, &v, 4, (uintptr_t)code + 1));
		close(fd);
		ASSERT_EQ(1, write(go[1], "g", 1));
	}
	ASSERT_EQ(0, wait_exit_code(child));

	n = fj_drain(recs, FJ_MAX_EVENTS);
	ASSERT_LT(0, n);
	for (i = 0; i < n; i++) {
		struct flowjit_event *ev = &recs[i].ev;

		if ((pid_t)ev->pid != child)
			continue;
		if (ev->type == FLOWJIT_EV_WRITE) {
			writes++;
			EXPECT_TRUE(ev->flags & FLOWJIT_EVF_KERNEL);
			EXPECT_EQ(remote, !!(ev->flags & FLOWJIT_EVF_REMOTE));
		}
		if (ev->type == FLOWJIT_EV_EXEC && (ev->flags & FLOWJIT_EVF_PAYLOAD)) {
			execs++;
			fresh += !memcmp(recs[i].page + 1, &v, 4);
		}
	}
	TH_LOG("%s write: %d WRITE events, %d snapshots, %d of them with the patch",
	       remote ? "remote" : "own", writes, execs, fresh);
	EXPECT_EQ(1, writes);
	EXPECT_EQ(2, execs);
	EXPECT_EQ(1, fresh);
}

TEST_F(fj, forced_write_into_rx_code_is_logged)
{
	forced_write_into_rx_code(_metadata, false);
}

TEST_F(fj, remote_forced_write_into_rx_code_is_logged)
{
	forced_write_into_rx_code(_metadata, true);
}

/* A child of user nobody tracks itself, then runs @path --suid-report. */
static pid_t report_as_nobody(const char *path)
{
	pid_t child = fork();

	if (child == 0) {
		if (setgid(65534) || setuid(65534))
			_exit(10);
		if (fj_enable(FLOWJIT_F_INHERIT))
			_exit(11);
		execl(path, path, "--suid-report", NULL);
		_exit(12);
	}
	return child;
}

/*
 * A tracked unprivileged process that executes a set-user-ID program is
 * no longer tracked in it: snapshots would show the memory of a process
 * its tracker may not read. UNTRACK (after EXECVE) says why, and is the
 * last event of the process.
 */
TEST_F(fj, setuid_execve_ends_tracking)
{
	int i, n, untrack = 0, after = 0;
	char cmd[256];
	pid_t child;

	snprintf(cmd, sizeof(cmd), "cp /proc/%d/exe %s && chown 0:0 %s && chmod 4755 %s",
		 getpid(), SUID_COPY, SUID_COPY, SUID_COPY);
	ASSERT_EQ(0, system(cmd));
	child = report_as_nobody(SUID_COPY);
	ASSERT_LE(0, child);
	/* 0: root and untracked; 1: still tracked; 3: not set-user-ID */
	EXPECT_EQ(0, wait_exit_code(child));
	unlink(SUID_COPY);

	n = fj_drain(recs, FJ_MAX_EVENTS);
	ASSERT_LT(0, n);
	for (i = 0; i < n; i++) {
		if ((pid_t)recs[i].ev.pid != child)
			continue;
		if (untrack) {
			after++;	/* nothing of the new program */
		} else if (recs[i].ev.type == FLOWJIT_EV_UNTRACK) {
			untrack++;
			EXPECT_EQ(FLOWJIT_UNTRACK_SECUREEXEC, recs[i].ev.aux);
		}
	}
	EXPECT_EQ(1, untrack);
	EXPECT_EQ(0, after);
}

/* A plain execve() keeps tracking (the contrast to the test above). */
TEST_F(fj, plain_execve_keeps_tracking)
{
	pid_t child = report_as_nobody("/proc/self/exe");

	ASSERT_LE(0, child);
	/* not set-user-ID: exit 3, after it checked it is still tracked */
	EXPECT_EQ(3, wait_exit_code(child));
}

/* Run @versions versions of code in an RWX page; 0 if all ran right. */
static int jit_versions(int versions)
{
	unsigned char *code = mmap(NULL, PAGE, PROT_READ | PROT_WRITE | PROT_EXEC,
				   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	int i;

	if (code == MAP_FAILED)
		return 2;
	for (i = 0; i < versions; i++) {
		emit_ret_imm(code, i);
		if (((jit_fn)code)() != i)
			return 1;
	}
	return 0;
}

/* A process of user @uid (-1: root) tracks itself and runs a JIT. */
static pid_t jit_as(uid_t uid, int versions)
{
	pid_t pid = fork();

	if (pid == 0) {
		if (uid != (uid_t)-1 && (setgid(uid) || setuid(uid)))
			_exit(10);
		if (fj_enable(0))
			_exit(11);
		_exit(jit_versions(versions));
	}
	return pid;
}

static int count_exec_of(int n, pid_t pid)
{
	int i, c = 0;

	for (i = 0; i < n; i++)
		c += recs[i].ev.type == FLOWJIT_EV_EXEC && (pid_t)recs[i].ev.pid == pid;
	return c;
}

/*
 * Self-tracking needs no privilege, but must not let one user fill the
 * ring that every recording shares: with nobody reading, a user who
 * floods it keeps to its share, and another user's JIT and root's are
 * recorded whole.
 */
TEST_F_TIMEOUT(fj, one_users_flood_costs_no_one_else_events, 120)
{
	const int versions = 40;
	pid_t flood, other, root;
	uint64_t lost = 0;
	int i, n;

	ASSERT_EQ(0, fj_control("bufsize 1048576"));
	/* 2,000 snapshots of 4 KiB: eight times the ring */
	flood = jit_as(65534, 2000);
	ASSERT_LE(0, flood);
	ASSERT_EQ(0, wait_exit_code(flood));
	other = jit_as(65533, versions);
	ASSERT_LE(0, other);
	ASSERT_EQ(0, wait_exit_code(other));
	root = jit_as(-1, versions);
	ASSERT_LE(0, root);
	ASSERT_EQ(0, wait_exit_code(root));

	n = fj_drain(recs, FJ_MAX_EVENTS);
	ASSERT_LT(0, n);
	for (i = 0; i < n; i++)
		if (recs[i].ev.type == FLOWJIT_EV_LOST)
			lost += recs[i].ev.aux;
	TH_LOG("flood: %d EXEC recorded, %llu events dropped",
	       count_exec_of(n, flood), (unsigned long long)lost);
	EXPECT_LT(0, count_exec_of(n, flood));
	EXPECT_LT(0, lost);
	EXPECT_EQ(versions, count_exec_of(n, other));
	EXPECT_EQ(versions, count_exec_of(n, root));
	ASSERT_EQ(0, fj_control("bufsize 8388608"));
}

/*
 * Four users flood the ring (one person with a range of subordinate uids
 * in a user namespace has as many): each keeps to its share, and
 * together they still leave root's JIT recorded whole.
 */
TEST_F_TIMEOUT(fj, four_users_flooding_cost_root_no_events, 240)
{
	const int versions = 40;
	pid_t flood[4], root;
	uint64_t lost = 0;
	int i, n, flooded = 0;

	ASSERT_EQ(0, fj_control("bufsize 1048576"));
	for (i = 0; i < 4; i++) {
		flood[i] = jit_as(65530 + i, 1000);
		ASSERT_LE(0, flood[i]);
	}
	for (i = 0; i < 4; i++)
		ASSERT_EQ(0, wait_exit_code(flood[i]));
	root = jit_as(-1, versions);
	ASSERT_LE(0, root);
	ASSERT_EQ(0, wait_exit_code(root));

	n = fj_drain(recs, FJ_MAX_EVENTS);
	ASSERT_LT(0, n);
	for (i = 0; i < n; i++)
		if (recs[i].ev.type == FLOWJIT_EV_LOST)
			lost += recs[i].ev.aux;
	for (i = 0; i < 4; i++)
		flooded += count_exec_of(n, flood[i]);
	TH_LOG("floods: %d EXEC recorded, %llu events dropped; root: %d of %d",
	       flooded, (unsigned long long)lost, count_exec_of(n, root), versions);
	EXPECT_LT(0, lost);
	EXPECT_EQ(versions, count_exec_of(n, root));
	ASSERT_EQ(0, fj_control("bufsize 8388608"));
}

/* The page of process @pid at @addr, read with process_vm_readv(). */
struct remote_read {
	pid_t pid;
	void *addr;
	ssize_t ret;
};

static void *read_remote(void *arg)
{
	struct remote_read *r = arg;
	char buf[8];
	struct iovec local = { buf, sizeof(buf) }, remote = { r->addr, sizeof(buf) };

	r->ret = process_vm_readv(r->pid, &local, 1, &remote, 1, 0);
	return NULL;
}

/*
 * The child of the test below: track itself (without inheritance), send
 * the parent a userfaultfd of a page of its and the page's address, and
 * execve() itself when told to.
 */
static int exec_while_read(int sock)
{
	struct uffdio_api api = { .api = UFFD_API };
	struct uffdio_register reg = { .mode = UFFDIO_REGISTER_MODE_MISSING };
	char cbuf[CMSG_SPACE(sizeof(int))] = { 0 }, c;
	void *page;
	struct iovec iov = { &page, sizeof(page) };
	struct msghdr msg = {
		.msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = cbuf, .msg_controllen = sizeof(cbuf),
	};
	struct cmsghdr *cm = CMSG_FIRSTHDR(&msg);
	int uffd;

	if (fj_enable(0))
		return 10;
	uffd = syscall(SYS_userfaultfd, O_CLOEXEC);
	page = mmap(NULL, PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (uffd < 0 || page == MAP_FAILED || ioctl(uffd, UFFDIO_API, &api))
		return 11;
	reg.range.start = (uintptr_t)page;
	reg.range.len = PAGE;
	if (ioctl(uffd, UFFDIO_REGISTER, &reg))
		return 12;
	cm->cmsg_level = SOL_SOCKET;
	cm->cmsg_type = SCM_RIGHTS;
	cm->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(cm), &uffd, sizeof(int));
	if (sendmsg(sock, &msg, 0) != sizeof(page) || read(sock, &c, 1) != 1)
		return 13;
	execl("/proc/self/exe", "flowjit_access", "--suid-report", NULL);
	return 14;
}

/*
 * A tracked process execs while another process holds its address space
 * for a moment, as a reader of /proc/PID/cmdline or a debugger does:
 * here a process_vm_readv() waits on a userfaultfd of the page it reads
 * until after the exec. The process was the only one to run in its old
 * address space, so the new program is still tracked.
 */
TEST_F(fj, execve_while_another_process_reads_the_old_memory)
{
	char cbuf[CMSG_SPACE(sizeof(int))] = { 0 };
	struct remote_read r = { 0 };
	struct iovec iov = { &r.addr, sizeof(r.addr) };
	struct msghdr msg = {
		.msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = cbuf, .msg_controllen = sizeof(cbuf),
	};
	struct uffd_msg fault;
	pthread_t reader;
	int sv[2], uffd, status;

	ASSERT_EQ(0, socketpair(AF_UNIX, SOCK_STREAM, 0, sv));
	r.pid = fork();
	ASSERT_LE(0, r.pid);
	if (!r.pid) {
		close(sv[0]);
		_exit(exec_while_read(sv[1]));
	}
	close(sv[1]);
	ASSERT_EQ((ssize_t)sizeof(r.addr), recvmsg(sv[0], &msg, 0));
	ASSERT_NE(NULL, CMSG_FIRSTHDR(&msg));
	memcpy(&uffd, CMSG_DATA(CMSG_FIRSTHDR(&msg)), sizeof(int));
	ASSERT_EQ(0, pthread_create(&reader, NULL, read_remote, &r));
	/* the reader holds the child's memory, waiting for the page */
	ASSERT_EQ((ssize_t)sizeof(fault), read(uffd, &fault, sizeof(fault)));
	ASSERT_EQ(UFFD_EVENT_PAGEFAULT, fault.event);
	ASSERT_EQ(1, write(sv[0], "x", 1));
	ASSERT_EQ(r.pid, waitpid(r.pid, &status, 0));
	close(uffd);
	pthread_join(reader, NULL);
	ASSERT_TRUE(WIFEXITED(status));
	/* --suid-report as root: 1 if still tracked */
	EXPECT_EQ(1, WEXITSTATUS(status)) TH_LOG("tracking %s across the exec",
						 WEXITSTATUS(status) ? "kept" : "lost");
	close(sv[0]);
}

/* "--suid-report": the exit code tells the tests above what execve did. */
static int suid_report(void)
{
	if (geteuid() != 0)
		return fj_get() != 0 ? 3 : 4;
	return fj_get() ? 1 : 0;
}

int main(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "--suid-report"))
		return suid_report();
	return guest_harness_run(argc, argv);
}
