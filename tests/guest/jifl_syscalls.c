// SPDX-License-Identifier: GPL-2.0
/*
 * JIFL in the guest: system calls run from the code cache give exactly
 * the native results, and the statistics prove they ran there.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/futex.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/mman.h>
#include <sys/select.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "guest_harness.h"
#include "proc_util.h"

/*
 * A digest of system-call results, to compare native and JIFL runs. Each
 * put() reads only values its own call made: C does not order the
 * evaluation of arguments.
 */
struct digest {
	char buf[8192];
	size_t len;
};

static void put(struct digest *d, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	d->len += vsnprintf(d->buf + d->len, sizeof(d->buf) - d->len, fmt, ap);
	va_end(ap);
}

static void file_io(struct digest *d)
{
	char buf[64] = "";
	struct stat st;
	int fd = open("/tmp/jifl-file", O_CREAT | O_TRUNC | O_RDWR, 0600);

	put(d, "open:%d ", fd >= 0);
	put(d, "write:%zd ", write(fd, "hello jifl", 10));
	put(d, "lseek:%ld ", (long)lseek(fd, 6, SEEK_SET));
	put(d, "read:%zd:%s ", read(fd, buf, sizeof(buf) - 1), buf);
	put(d, "pread:%zd ", pread(fd, buf, 5, 0));
	put(d, "fstat:%d:", fstat(fd, &st));
	put(d, "%lld ", (long long)st.st_size);
	put(d, "close:%d ", close(fd));
	put(d, "stat:%d ", stat("/tmp/jifl-file", &st));
	put(d, "unlink:%d ", unlink("/tmp/jifl-file"));
	put(d, "enoent:%d:", open("/tmp/jifl-none", O_RDONLY));
	put(d, "%d\n", errno);
}

static void pipes_and_poll(struct digest *d)
{
	struct pollfd pfd;
	struct epoll_event ev = { .events = EPOLLIN }, out;
	fd_set rfds;
	struct timeval tv = { 0, 0 };
	int p[2], ep;
	char c;

	put(d, "pipe:%d ", pipe(p));
	pfd.fd = p[0];
	pfd.events = POLLIN;
	put(d, "poll0:%d ", poll(&pfd, 1, 0));
	put(d, "write:%zd ", write(p[1], "x", 1));
	put(d, "poll1:%d:", poll(&pfd, 1, 0));
	put(d, "%x ", pfd.revents);
	FD_ZERO(&rfds);
	FD_SET(p[0], &rfds);
	put(d, "select:%d ", select(p[0] + 1, &rfds, NULL, NULL, &tv));
	ep = epoll_create1(0);
	put(d, "epoll_ctl:%d ", epoll_ctl(ep, EPOLL_CTL_ADD, p[0], &ev));
	put(d, "epoll_wait:%d ", epoll_wait(ep, &out, 1, 0));
	put(d, "read:%zd:", read(p[0], &c, 1));
	put(d, "%c\n", c);
	close(ep);
	close(p[0]);
	close(p[1]);
}

static void processes(struct digest *d)
{
	int status;
	pid_t pid = fork();

	if (pid == 0)
		_exit(42);
	put(d, "waitpid:%d ", waitpid(pid, &status, 0) == pid);
	put(d, "exit:%d ", WEXITSTATUS(status));
	pid = fork();
	if (pid == 0) {
		execl("/bin/busybox", "true", NULL);
		_exit(127);
	}
	waitpid(pid, &status, 0);
	put(d, "exec:%d\n", WEXITSTATUS(status));
}

static void memory(struct digest *d)
{
	char *p = mmap(NULL, 3 * 4096, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	put(d, "mmap:%d ", p != MAP_FAILED);
	memset(p, 7, 3 * 4096);
	put(d, "mprotect:%d ", mprotect(p + 4096, 4096, PROT_READ));
	put(d, "mremap:%d ", mremap(p, 3 * 4096, 6 * 4096, MREMAP_MAYMOVE) != MAP_FAILED);
	put(d, "brk:%d\n", sbrk(0) != (void *)-1);
}

static volatile int got_signal;

static void on_usr1(int sig)
{
	got_signal = sig;
}

static void signals(struct digest *d)
{
	struct sigaction sa = { .sa_handler = on_usr1 };
	sigset_t set, old;

	put(d, "sigaction:%d ", sigaction(SIGUSR1, &sa, NULL));
	put(d, "kill:%d ", kill(getpid(), SIGUSR1));
	put(d, "got:%d ", got_signal);
	sigemptyset(&set);
	sigaddset(&set, SIGUSR2);
	put(d, "sigprocmask:%d\n", sigprocmask(SIG_BLOCK, &set, &old));
	sigprocmask(SIG_SETMASK, &old, NULL);
}

static int futex_word;

static void *futex_waker(void *arg)
{
	usleep(10000);
	__atomic_store_n(&futex_word, 1, __ATOMIC_SEQ_CST);
	syscall(SYS_futex, &futex_word, FUTEX_WAKE, 1, NULL, NULL, 0);
	return NULL;
}

static void futexes(struct digest *d)
{
	pthread_t t;

	futex_word = 0;
	pthread_create(&t, NULL, futex_waker, NULL);
	while (!__atomic_load_n(&futex_word, __ATOMIC_SEQ_CST))
		syscall(SYS_futex, &futex_word, FUTEX_WAIT, 0, NULL, NULL, 0);
	pthread_join(t, NULL);
	put(d, "futex:%d\n", futex_word);
}

static void sockets(struct digest *d)
{
	struct sockaddr_in a = { .sin_family = AF_INET,
				 .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t len = sizeof(a);
	int sv[2], l, c, s;
	char buf[8] = "";

	put(d, "socketpair:%d ", socketpair(AF_UNIX, SOCK_STREAM, 0, sv));
	put(d, "send:%zd ", send(sv[0], "unix", 4, 0));
	put(d, "recv:%zd:%s ", recv(sv[1], buf, 4, 0), buf);
	close(sv[0]);
	close(sv[1]);
	l = socket(AF_INET, SOCK_STREAM, 0);
	put(d, "bind:%d ", bind(l, (void *)&a, sizeof(a)));
	put(d, "listen:%d ", listen(l, 1));
	getsockname(l, (void *)&a, &len);
	c = socket(AF_INET, SOCK_STREAM, 0);
	put(d, "connect:%d ", connect(c, (void *)&a, sizeof(a)));
	s = accept(l, NULL, NULL);
	put(d, "accept:%d ", s >= 0);
	put(d, "tcp_write:%zd ", write(c, "tcp!", 4));
	put(d, "tcp_read:%zd\n", read(s, buf, 4));
	close(s);
	close(c);
	close(l);
}

/* User-copy faults: the extable fixups must give -EFAULT as natively. */
static void user_copy_faults(struct digest *d)
{
	/* volatile: the compiler must not see that the pointer is bad */
	void *volatile bad = (void *)16;
	int p[2];

	put(d, "pipe:%d ", pipe(p));
	put(d, "write:%zd ", write(p[1], "abc", 3));
	put(d, "read_efault:%zd:", read(p[0], bad, 3));
	put(d, "%d ", errno);
	put(d, "write_efault:%zd:", write(p[1], bad, 3));
	put(d, "%d ", errno);
	put(d, "stat_efault:%d:", stat("/", bad));
	put(d, "%d\n", errno);
	close(p[0]);
	close(p[1]);
}

static void workload(struct digest *d)
{
	d->len = 0;
	file_io(d);
	pipes_and_poll(d);
	processes(d);
	memory(d);
	signals(d);
	futexes(d);
	sockets(d);
	user_copy_faults(d);
}

FIXTURE(jifl) {
	struct digest native, cached;
};

FIXTURE_SETUP(jifl)
{
	ASSERT_EQ(0, access("/proc/jifl/control", F_OK));
	ASSERT_EQ(0, jifl_control("disable"));
	ASSERT_EQ(0, jifl_control("pid 0"));
}

FIXTURE_TEARDOWN(jifl)
{
	jifl_control("disable");
}

TEST_F(jifl, all_syscalls_give_native_results)
{
	long long entries, blocks;

	workload(&self->native);
	entries = jifl_stat("entries");
	ASSERT_EQ(0, jifl_control("syscalls all"));
	ASSERT_EQ(0, jifl_control("enable"));
	workload(&self->cached);
	ASSERT_EQ(0, jifl_control("disable"));
	TH_LOG("native:\n%s", self->native.buf);
	EXPECT_STREQ(self->native.buf, self->cached.buf);
	blocks = jifl_stat("blocks");
	TH_LOG("entries %lld -> %lld, blocks %lld, native_insn %lld",
	       entries, jifl_stat("entries"), blocks, jifl_stat("native_insn"));
	EXPECT_LT(entries + 50, jifl_stat("entries"));
	EXPECT_LT(100, blocks);
}

TEST_F(jifl, pid_filter_and_syscall_set)
{
	long long before;

	ASSERT_EQ(0, jifl_control("syscalls 39"));	/* getpid */
	ASSERT_EQ(0, jifl_control("pid 1"));
	ASSERT_EQ(0, jifl_control("enable"));
	before = jifl_stat("entries");
	syscall(SYS_getpid);
	EXPECT_EQ(before, jifl_stat("entries"));
	ASSERT_EQ(0, jifl_control("pid 0"));
	syscall(SYS_getpid);
	syscall(SYS_getppid);
	EXPECT_EQ(before + 1, jifl_stat("entries"));
	EXPECT_EQ(getpid(), syscall(SYS_getpid));
}

TEST_F(jifl, control_rejects_bad_input)
{
	EXPECT_EQ(-EINVAL, jifl_control("frobnicate"));
	EXPECT_EQ(-ERANGE, jifl_control("syscalls 100000"));
	EXPECT_EQ(-EINVAL, jifl_control("pid -3"));
}

static volatile int stop_toggle;

static void *toggler(void *arg)
{
	int i = 0;

	while (!stop_toggle) {
		jifl_control(i % 3 == 2 ? "flush" : i % 3 ? "disable" : "enable");
		i++;
		usleep(2000);
	}
	return (void *)(long)i;
}

/* Enable, disable and flush while the other CPU runs in the cache. */
TEST_F(jifl, toggle_and_flush_under_load)
{
	pthread_t t;
	void *toggles;
	int i;

	ASSERT_EQ(0, jifl_control("syscalls all"));
	ASSERT_EQ(0, jifl_control("enable"));
	workload(&self->native);
	pthread_create(&t, NULL, toggler, NULL);
	for (i = 0; i < 10; i++) {
		workload(&self->cached);
		EXPECT_STREQ(self->native.buf, self->cached.buf);
	}
	stop_toggle = 1;
	pthread_join(t, &toggles);
	TH_LOG("%ld toggles, %lld flushes", (long)toggles, jifl_stat("flushes"));
	EXPECT_LT(0, jifl_stat("flushes"));
}

TEST_HARNESS_MAIN
