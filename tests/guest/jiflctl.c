// SPDX-License-Identifier: GPL-2.0
/*
 * jiflctl in the guest: every command changes /proc/jifl/control and
 * /proc/jifl/stats as it says, "run" covers exactly the command's process
 * and the processes it creates (its process alone with --no-children)
 * and leaves its output unchanged, and bad input fails cleanly, leaving
 * the settings as they were.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/sched.h>
#include <limits.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "guest_harness.h"
#include "jifl_module.h"
#include "proc_util.h"

static const char *const jiflctl_paths[] = {
	"/jifl/bin/jiflctl",
#ifdef JIFL_TOP
	JIFL_TOP "/build/bin/jiflctl",
#endif
};

static const char *jiflctl;

/* Output of the last run(). */
/* large enough for bbcount --top 0 of an exec and exit (some 3,500 blocks) */
static char out[1 << 20], err[1 << 16];

enum how { AS_ROOT, AS_NOBODY, WITHOUT_PROC_JIFL };

/*
 * Run argv (NULL-ended; argv[0] NULL means jiflctl) with stdout and
 * stderr to out[] and err[]. Returns the exit status, 1000 + signal, or
 * -1 when it could not run.
 */
static int run_how(enum how how, const char *argv[])
{
	int status;
	pid_t pid;

	if (!argv[0])
		argv[0] = jiflctl;
	pid = fork();
	if (pid == 0) {
		int o = open("/tmp/jc.out", O_WRONLY | O_CREAT | O_TRUNC, 0666);
		int e = open("/tmp/jc.err", O_WRONLY | O_CREAT | O_TRUNC, 0666);

		dup2(o, 1);
		dup2(e, 2);
		if (how == AS_NOBODY && (setgid(65534) || setuid(65534)))
			_exit(125);
		/* a kernel without CONFIG_JIFL, as far as this process sees */
		if (how == WITHOUT_PROC_JIFL &&
		    (unshare(CLONE_NEWNS) ||
		     mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) ||
		     mount("none", "/proc/jifl", "tmpfs", 0, NULL)))
			_exit(125);
		execv(argv[0], (char **)argv);
		_exit(126);
	}
	if (pid < 0 || waitpid(pid, &status, 0) != pid)
		return -1;
	file_read("/tmp/jc.out", out, sizeof(out));
	file_read("/tmp/jc.err", err, sizeof(err));
	return WIFEXITED(status) ? WEXITSTATUS(status) : 1000 + WTERMSIG(status);
}

static int run(const char *argv[])
{
	return run_how(AS_ROOT, argv);
}

#define JIFLCTL(...) run((const char *[]){ NULL, __VA_ARGS__, NULL })

/* The text after "@key: " on a line of @text, or -1 as text. */
static const char *value_of(const char *text, const char *key)
{
	static char val[1024];
	size_t klen = strlen(key);
	const char *line, *end;

	for (line = text; *line; line = end + 1) {
		end = strchrnul(line, '\n');
		if (!strncmp(line, key, klen) && !strncmp(line + klen, ": ", 2)) {
			snprintf(val, sizeof(val), "%.*s", (int)(end - line - klen - 2),
				 line + klen + 2);
			return val;
		}
		if (!*end)
			break;
	}
	return "-1";
}

static const char *control(const char *key)
{
	static char buf[4096];

	file_read("/proc/jifl/control", buf, sizeof(buf));
	return value_of(buf, key);
}

/* A counter in jiflctl's output: "  key   N  ..." or JSON's "key": N. */
static long long counter(const char *text, const char *fmt, const char *key)
{
	char pat[64];
	const char *p;

	snprintf(pat, sizeof(pat), fmt, key);
	p = strstr(text, pat);
	return p ? strtoll(p + strlen(pat), NULL, 10) : -1;
}

FIXTURE(jiflctl) {
	char pad;
};

FIXTURE_SETUP(jiflctl)
{
	size_t i;

	for (i = 0; i < sizeof(jiflctl_paths) / sizeof(jiflctl_paths[0]); i++)
		if (!access(jiflctl_paths[i], X_OK))
			jiflctl = jiflctl_paths[i];
	ASSERT_NE(NULL, jiflctl) TH_LOG("jiflctl is not installed");
	ASSERT_EQ(0, access("/proc/jifl/control", F_OK));
	ASSERT_EQ(0, JIFLCTL("disable"));
}

FIXTURE_TEARDOWN(jiflctl)
{
	JIFLCTL("tool", "null");
	JIFLCTL("disable");
	JIFLCTL("enable", "--syscalls", "none");
	JIFLCTL("disable");
}

TEST_F(jiflctl, enable_sets_syscalls_and_pid)
{
	ASSERT_EQ(0, JIFLCTL("enable", "--syscalls", "read,write,getpid,100-102", "--pid", "1"));
	EXPECT_STREQ("1", control("enabled"));
	EXPECT_STREQ("0-1,39,100-102", control("syscalls"));
	EXPECT_STREQ("1", control("pid"));
	ASSERT_EQ(0, JIFLCTL("status"));
	TH_LOG("status:\n%s", out);
	EXPECT_NE(NULL, strstr(out, "enabled"));
	EXPECT_NE(NULL, strstr(out, "0-1,39,100-102 (read, write, getpid, "));
	EXPECT_NE(NULL, strstr(out, "pid:      1 "));
	EXPECT_NE(NULL, strstr(out, "entries"));
	ASSERT_EQ(0, JIFLCTL("disable"));
	EXPECT_STREQ("0", control("enabled"));
	ASSERT_EQ(0, JIFLCTL("status"));
	EXPECT_NE(NULL, strstr(out, "disabled"));
}

TEST_F(jiflctl, enable_all_runs_from_the_cache)
{
	long long before, json;

	ASSERT_EQ(0, JIFLCTL("enable", "--syscalls", "0-3,getpid", "--pid", "1"));
	ASSERT_EQ(0, JIFLCTL("enable"));	/* defaults: all, every process */
	EXPECT_STREQ("1", control("enabled"));
	EXPECT_STREQ("0", control("pid"));
	EXPECT_EQ(0, strncmp(control("syscalls"), "0-4", 3));
	before = jifl_stat("entries");
	syscall(SYS_getpid);
	syscall(SYS_getppid);
	ASSERT_EQ(0, JIFLCTL("disable"));
	EXPECT_LT(before + 2, jifl_stat("entries"));
	ASSERT_EQ(0, JIFLCTL("stats", "--json"));
	TH_LOG("json: %s", out);
	EXPECT_EQ('{', out[0]);
	EXPECT_NE(NULL, strstr(out, "}\n"));
	json = counter(out, "\"%s\": ", "entries");
	EXPECT_LT(before + 2, json);
	EXPECT_LT(0, counter(out, "\"%s\": ", "blocks"));
	EXPECT_EQ(jifl_stat("cache_bytes"), counter(out, "\"%s\": ", "cache_bytes"));
	ASSERT_EQ(0, JIFLCTL("stats"));
	EXPECT_NE(NULL, strstr(out, "lookup_misses"));
}

TEST_F(jiflctl, flush_counts)
{
	long long flushes = jifl_stat("flushes");

	ASSERT_EQ(0, JIFLCTL("enable", "--syscalls", "getpid"));
	syscall(SYS_getpid);
	ASSERT_EQ(0, JIFLCTL("flush"));
	EXPECT_EQ(flushes + 1, jifl_stat("flushes"));
}

TEST_F(jiflctl, run_gives_native_output)
{
	static char native[sizeof(out)];
	long long entries = jifl_stat("entries");

	ASSERT_EQ(0, run((const char *[]){ "/bin/busybox", "ls", "/", NULL }));
	strcpy(native, out);
	ASSERT_EQ(0, JIFLCTL("run", "--", "/bin/busybox", "ls", "/"));
	TH_LOG("jiflctl run:\n%s", err);
	EXPECT_STREQ(native, out);
	EXPECT_NE(NULL, strstr(native, "proc"));
	/* the tool's own count and the kernel's agree that it ran there */
	EXPECT_LT(10, counter(err, "\n  %s ", "entries"));
	EXPECT_LT(entries + 10, jifl_stat("entries"));
	EXPECT_LT(0, counter(err, "\n  %s ", "blocks") + counter(err, "\n  %s ", "lookups"));
	/* settings as before */
	EXPECT_STREQ("0", control("enabled"));
	EXPECT_STREQ("0", control("pid"));
}

/* The filter names the command's process before it starts, and it alone. */
TEST_F(jiflctl, run_filters_the_command)
{
	char pid[32];
	const char *p;

	ASSERT_EQ(0, JIFLCTL("run", "--syscalls", "read,openat,getpid",
			     "--", "/bin/busybox", "cat", "/proc/jifl/control"));
	TH_LOG("in the run:\n%s%s", out, err);
	p = strstr(err, "(pid ");
	ASSERT_NE(NULL, p);
	snprintf(pid, sizeof(pid), "pid: %d\n", atoi(p + 5));
	EXPECT_NE(NULL, strstr(out, pid));
	EXPECT_NE(NULL, strstr(out, "enabled: 1\n"));
	EXPECT_NE(NULL, strstr(out, "syscalls: 0,39,257\n"));
	EXPECT_STREQ("0", control("enabled"));
	EXPECT_STREQ("0", control("pid"));
}

/* "jiflctl getppid N", as the descendants of the tests below run it */
#define GETPPIDS	1000

static int getppid_child(long n)
{
	while (n-- > 0)
		syscall(SYS_getppid);
	return 0;
}

/* Our process calls getppid() GETPPIDS times once @go is readable. */
static pid_t getppid_waiter(int go[2])
{
	pid_t pid = fork();
	char c;

	if (pid == 0) {
		close(go[1]);
		_exit(read(go[0], &c, 1) == 1 ? getppid_child(GETPPIDS) : 1);
	}
	return pid;
}

/*
 * Let the waiter @pid go and wait for it: how many system calls ran
 * from the cache meanwhile, or -1 when it failed.
 */
static long long release(int go[2], pid_t pid)
{
	long long before = jifl_stat("entries");
	int status, ok;

	close(go[0]);
	ok = write(go[1], "", 1) == 1 && waitpid(pid, &status, 0) == pid &&
	     WIFEXITED(status) && !WEXITSTATUS(status);
	close(go[1]);
	return ok ? jifl_stat("entries") - before : -1;
}

/*
 * The command's grandchild calls getppid() GETPPIDS times: counted with
 * the default, not with --no-children (the shells call it once each).
 */
TEST_F(jiflctl, run_covers_the_commands_children)
{
	char exe[PATH_MAX], cmd[PATH_MAX + 64];
	long long all, alone;
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);

	ASSERT_LT(0, n);
	exe[n] = '\0';
	snprintf(cmd, sizeof(cmd), "/bin/busybox sh -c '%s getppid %d'; true", exe, GETPPIDS);
	ASSERT_EQ(0, JIFLCTL("run", "--syscalls", "getppid", "--",
			     "/bin/busybox", "sh", "-c", cmd));
	all = counter(err, "\n  %s ", "entries");
	ASSERT_EQ(0, JIFLCTL("run", "--no-children", "--syscalls", "getppid", "--",
			     "/bin/busybox", "sh", "-c", cmd));
	alone = counter(err, "\n  %s ", "entries");
	TH_LOG("getppid() from the cache: %lld with the children, %lld without", all, alone);
	EXPECT_LE(GETPPIDS, all);
	EXPECT_LE(0, alone);
	EXPECT_GT(10, alone);
	EXPECT_STREQ("0", control("pid"));
	EXPECT_STREQ("0", control("tree"));
}

/*
 * enable --pid P --children: P's children from then on are selected,
 * not one it created before, nor P's parent.
 */
TEST_F(jiflctl, enable_children_selects_later_children)
{
	int early_go[2], late_go[2], alone_go[2];
	pid_t early, late, alone;
	long long counted;
	char pid[16];

	ASSERT_EQ(0, pipe(early_go));
	ASSERT_EQ(0, pipe(late_go));
	ASSERT_EQ(0, pipe(alone_go));
	early = getppid_waiter(early_go);
	ASSERT_LT(0, early);
	snprintf(pid, sizeof(pid), "%d", (int)getpid());
	ASSERT_EQ(0, JIFLCTL("enable", "--syscalls", "getppid", "--pid", pid, "--children"));
	EXPECT_STREQ(pid, control("pid"));
	EXPECT_STREQ("1", control("tree"));
	ASSERT_EQ(0, JIFLCTL("status"));
	EXPECT_NE(NULL, strstr(out, "(and the processes it creates)")) TH_LOG("%s", out);
	late = getppid_waiter(late_go);
	ASSERT_LT(0, late);

	counted = release(early_go, early);
	TH_LOG("a child from before: %lld from the cache", counted);
	EXPECT_LE(0, counted);
	EXPECT_GT(GETPPIDS / 2, counted);
	counted = release(late_go, late);
	TH_LOG("a child from after: %lld from the cache", counted);
	EXPECT_LE(GETPPIDS, counted);

	/* back to one process: the marks of the tree are stale */
	ASSERT_EQ(0, JIFLCTL("enable", "--syscalls", "getppid", "--pid", pid));
	EXPECT_STREQ("0", control("tree"));
	alone = getppid_waiter(alone_go);
	ASSERT_LT(0, alone);
	counted = release(alone_go, alone);
	EXPECT_LE(0, counted);
	EXPECT_GT(GETPPIDS / 2, counted);
}

TEST_F(jiflctl, run_restores_settings_and_exit_status)
{
	ASSERT_EQ(0, JIFLCTL("enable", "--syscalls", "getpid", "--pid", "1"));
	EXPECT_EQ(7, JIFLCTL("run", "--quiet", "--", "/bin/busybox", "sh", "-c", "exit 7"));
	EXPECT_STREQ("", err);
	EXPECT_STREQ("1", control("enabled"));
	EXPECT_STREQ("39", control("syscalls"));
	EXPECT_STREQ("1", control("pid"));
	ASSERT_EQ(0, JIFLCTL("disable"));
	EXPECT_EQ(128 + SIGTERM, JIFLCTL("run", "--", "/bin/busybox", "sh", "-c", "kill -TERM $$"));
	EXPECT_NE(NULL, strstr(err, "signal 15"));
	EXPECT_EQ(127, JIFLCTL("run", "--", "/no/such/program"));
	EXPECT_NE(NULL, strstr(err, "jiflctl: run: /no/such/program: No such file or directory"));
	EXPECT_STREQ("0", control("enabled"));
	EXPECT_STREQ("39", control("syscalls"));
}

/* A child with pid @want that waits for @go: clone3() with set_tid. */
static pid_t child_with_pid(pid_t want, int go[2])
{
	struct clone_args args = {
		.exit_signal = SIGCHLD,
		.set_tid = (unsigned long)&want,
		.set_tid_size = 1,
	};
	long pid = syscall(SYS_clone3, &args, sizeof(args));
	char c;

	if (pid == 0)
		_exit(read(go[0], &c, 1) == 1 ? 0 : 1);
	return pid;
}

/*
 * The selected process exits while "run" runs, and another takes its
 * pid: the run must not select the newcomer afterwards. JIFL stays off,
 * and jiflctl says why.
 */
TEST_F(jiflctl, run_does_not_reselect_a_reused_pid)
{
	static const char fifo[] = "/tmp/jc.fifo";
	int old_go[2], new_go[2], status, fd, i;
	pid_t old, reuse, bg;
	char pid[16];

	ASSERT_EQ(0, pipe(old_go));
	ASSERT_EQ(0, pipe(new_go));
	unlink(fifo);
	ASSERT_EQ(0, mkfifo(fifo, 0600));
	old = getppid_waiter(old_go);
	ASSERT_LT(0, old);
	snprintf(pid, sizeof(pid), "%d", (int)old);
	ASSERT_EQ(0, JIFLCTL("enable", "--syscalls", "getppid", "--pid", pid));

	bg = fork();
	ASSERT_LE(0, bg);
	if (bg == 0)
		_exit(JIFLCTL("run", "--quiet", "--syscalls", "getpid", "--",
			      "/bin/busybox", "sh", "-c", "read x < /tmp/jc.fifo"));
	/* the command is selected: the run has saved the settings */
	for (i = 0; i < 1000 * guest_time_scale() && !strcmp(control("pid"), pid); i++)
		usleep(10000);
	ASSERT_STRNE(pid, control("pid"));

	/* the selected process exits; a new one gets its pid */
	EXPECT_LE(0, release(old_go, old));
	reuse = child_with_pid(old, new_go);
	ASSERT_EQ(old, reuse) TH_LOG("clone3 set_tid: %s", strerror(errno));

	fd = open(fifo, O_WRONLY);
	ASSERT_LE(0, fd);
	ASSERT_EQ(1, write(fd, "\n", 1));
	close(fd);
	ASSERT_EQ(bg, waitpid(bg, &status, 0));
	EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	file_read("/tmp/jc.err", err, sizeof(err));
	TH_LOG("jiflctl run: %s", err);
	TH_LOG("after: enabled %s, pid %s", control("enabled"), control("pid"));
	EXPECT_STREQ("0", control("enabled"));
	EXPECT_NE(NULL, strstr(err, "has exited"));

	close(new_go[0]);
	EXPECT_EQ(1, write(new_go[1], "", 1));
	close(new_go[1]);
	EXPECT_EQ(reuse, waitpid(reuse, &status, 0));
	unlink(fifo);
}

static const struct {
	const char *argv[6];
	int status;
	const char *error;	/* the start of stderr */
} bad_uses[] = {
	{ { "enable", "--syscalls", "read,nosuchcall" }, 2,
	  "jiflctl: --syscalls: invalid list 'read,nosuchcall': no system call 'nosuchcall'\n" },
	{ { "enable", "--syscalls", "5-3" }, 2,
	  "jiflctl: --syscalls: invalid list '5-3': bad number or range '5-3'\n" },
	{ { "enable", "--syscalls", "" }, 2,
	  "jiflctl: --syscalls: invalid list '': empty (none is the empty set)\n" },
	{ { "enable", "--syscalls", "1000" }, 1,
	  "jiflctl: syscalls 1000: Numerical result out of range\n" },
	{ { "enable", "--pid", "-3" }, 2, "jiflctl: --pid: not a process id: '-3'\n" },
	{ { "enable", "--pid", "999999" }, 1, "jiflctl: --pid: no process 999999\n" },
	{ { "enable", "--syscalls" }, 2, "jiflctl: enable: '--syscalls' needs an argument\n" },
	{ { "stats", "--pid", "1" }, 2, "jiflctl: stats: no option --pid\n" },
	{ { "tool", "nosuchtool" }, 1, "jiflctl: tool nosuchtool: the kernel has no such tool\n" },
	{ { "tool" }, 2, "jiflctl: tool: needs one tool name" },
	{ { "tool", "null", "count" }, 2, "jiflctl: tool: needs one tool name" },
	{ { "disable", "now" }, 2, "jiflctl: disable: unexpected argument 'now'\n" },
	{ { "frobnicate" }, 2, "jiflctl: unknown command 'frobnicate'\n" },
	{ { "run" }, 2, "jiflctl: run: no command" },
	{ { "run", "--pid", "1", "--", "true" }, 2, "jiflctl: run: no option --pid\n" },
	{ { "enable", "--children" }, 2, "jiflctl: enable: --children needs --pid\n" },
	{ { "enable", "--no-children" }, 2, "jiflctl: enable: no option --no-children\n" },
	{ { "enable", "--pid", "999999", "--children" }, 1, "jiflctl: --pid: no process 999999\n" },
};

TEST_F(jiflctl, bad_input_fails_cleanly)
{
	const char *argv[8] = { NULL };
	size_t i;

	ASSERT_EQ(0, JIFLCTL("enable", "--syscalls", "getpid", "--pid", "1"));
	ASSERT_EQ(0, JIFLCTL("disable"));
	for (i = 0; i < sizeof(bad_uses) / sizeof(bad_uses[0]); i++) {
		argv[0] = NULL;
		memcpy(argv + 1, bad_uses[i].argv, sizeof(bad_uses[i].argv));
		EXPECT_EQ(bad_uses[i].status, run(argv)) TH_LOG("%s %s", bad_uses[i].argv[0],
								bad_uses[i].argv[1]);
		EXPECT_EQ(0, strncmp(err, bad_uses[i].error, strlen(bad_uses[i].error)))
			TH_LOG("stderr: %s", err);
		EXPECT_STREQ("", out);
		/* nothing changed */
		EXPECT_STREQ("0", control("enabled"));
		EXPECT_STREQ("39", control("syscalls"));
		EXPECT_STREQ("1", control("pid"));
	}
}

/*
 * The tool hook: the test kernel's count tool adds inline code at the
 * start of every block. getpid's path is a few blocks, so N getpid()
 * calls run at least N blocks more; with the null tool none are counted.
 */
TEST_F(jiflctl, tool_hook_runs_in_every_block)
{
	long long before, after, blocks;
	char pid[16];
	int i;

	if (!guest_test_kernel())
		SKIP(return, "the count tool is CONFIG_JIFL_TEST's");
	ASSERT_EQ(0, JIFLCTL("tool", "count"));
	ASSERT_EQ(0, JIFLCTL("status"));
	EXPECT_NE(NULL, strstr(out, "tool:     count\n")) TH_LOG("%s", out);
	EXPECT_STREQ("count", control("tool"));
	snprintf(pid, sizeof(pid), "%d", (int)getpid());
	ASSERT_EQ(0, JIFLCTL("enable", "--syscalls", "getpid", "--pid", pid));
	before = jifl_stat("tool_blocks");
	for (i = 0; i < 1000; i++)
		syscall(SYS_getpid);
	after = jifl_stat("tool_blocks");
	blocks = after - before;
	TH_LOG("1000 getpid: %lld blocks counted", blocks);
	EXPECT_GE(blocks, 1000);
	/* back to the null tool: nothing counted any more */
	ASSERT_EQ(0, JIFLCTL("tool", "null"));
	EXPECT_STREQ("null", control("tool"));
	before = jifl_stat("tool_blocks");
	for (i = 0; i < 1000; i++)
		syscall(SYS_getpid);
	EXPECT_EQ(before, jifl_stat("tool_blocks"));
}

TEST_F(jiflctl, empty_set_is_none)
{
	ASSERT_EQ(0, JIFLCTL("enable", "--syscalls", "getpid"));
	ASSERT_EQ(0, JIFLCTL("enable", "--syscalls", "none"));
	EXPECT_STREQ("", control("syscalls"));
	ASSERT_EQ(0, JIFLCTL("status"));
	EXPECT_NE(NULL, strstr(out, "syscalls: none\n"));
}

TEST_F(jiflctl, needs_root_to_change)
{
	EXPECT_EQ(1, run_how(AS_NOBODY, (const char *[]){ NULL, "enable", NULL }));
	EXPECT_STREQ("jiflctl: syscalls all: Permission denied (needs root)\n", err);
	EXPECT_STREQ("0", control("enabled"));
	/* reading is for everyone */
	EXPECT_EQ(0, run_how(AS_NOBODY, (const char *[]){ NULL, "status", NULL }));
}

TEST_F(jiflctl, kernel_without_jifl)
{
	EXPECT_EQ(1, run_how(WITHOUT_PROC_JIFL, (const char *[]){ NULL, "status", NULL }));
	EXPECT_STREQ("jiflctl: /proc/jifl/control: No such file or directory "
		     "(is the kernel built with CONFIG_JIFL?)\n", err);
	EXPECT_EQ(1, run_how(WITHOUT_PROC_JIFL, (const char *[]){ NULL, "enable", NULL }));
	EXPECT_NE(NULL, strstr(err, "(is the kernel built with CONFIG_JIFL?)"));
	EXPECT_EQ(1, run_how(WITHOUT_PROC_JIFL,
			     (const char *[]){ NULL, "run", "--", "/bin/busybox", "true", NULL }));
	EXPECT_NE(NULL, strstr(err, "CONFIG_JIFL"));
}

/*
 * cover: the kernel functions the command's own system calls ran, from
 * its execve() on; --raw gives the addresses instead; the tool chosen
 * before is set back; the command's exit status is jiflctl's.
 */
TEST_F(jiflctl, cover_lists_the_commands_functions)
{
	long long blocks = -1, raw = 0;
	const char *line;
	int ret = jifl_module_load("jifl_cover");

	ASSERT_TRUE(!ret || ret == -EEXIST);
	ASSERT_EQ(0, JIFLCTL("tool", "null"));
	ASSERT_EQ(0, JIFLCTL("cover", "--", "/bin/busybox", "true"));
	TH_LOG("%.1200s", out);
	TH_LOG("%s", err);
	EXPECT_NE(NULL, strstr(out, " __x64_sys_execve\n"));
	line = strstr(out, "\n# ");
	if (line)
		blocks = strtoll(line + 3, NULL, 10);
	EXPECT_LT(100, blocks);
	EXPECT_STREQ("null", control("tool"));
	/*
	 * The exit alone: on the KASAN + lockdep kernel the whole command
	 * runs more blocks than the default buffer's million words hold
	 * (the stack traces KASAN takes of every allocation and free run
	 * translated since tail calls return into the cache), and the exit
	 * came after it was full.
	 */
	ASSERT_EQ(0, JIFLCTL("cover", "--syscalls", "exit_group", "--", "/bin/busybox", "true"));
	EXPECT_NE(NULL, strstr(out, " __x64_sys_exit_group\n"));
	EXPECT_EQ(NULL, strstr(out, " __x64_sys_execve\n"));

	ASSERT_EQ(0, JIFLCTL("cover", "--raw", "--", "/bin/busybox", "true"));
	for (line = out; *line; line = strchrnul(line, '\n'), line += !!*line)
		raw += !strncmp(line, "0xffffffff", 10);
	TH_LOG("%lld addresses", raw);
	EXPECT_LT(100, raw);
	EXPECT_EQ(1, JIFLCTL("cover", "--quiet", "--", "/bin/busybox", "false"));
	EXPECT_STREQ("null", control("tool"));
	EXPECT_EQ(2, JIFLCTL("cover", "--size", "1"));
	jifl_module_unload("jifl_cover");
}

/*
 * bbcount with room for every block: an exec and exit of busybox run
 * some 31,000 blocks on the KASAN + lockdep kernel, where the module's
 * default of 16,384 left the exit uncounted.
 */
static int load_bbcount(void)
{
	return jifl_module_load_params("jifl_bbcount", "max_blocks=131072");
}

/* The count of the line of bbcount's listing @out for @symbol, or -1. */
static long long bbcount_of(const char *symbol)
{
	const char *p = strstr(out, symbol), *line;

	if (!p)
		return -1;
	for (line = p; line > out && line[-1] != '\n'; line--)
		;
	return strtoll(line, NULL, 10);
}

/*
 * bbcount with a COMMAND: the blocks its system calls ran, counted from
 * 0; with --syscalls only those of the set (a per-syscall view); the
 * tool chosen before is set back; the command's exit status is
 * jiflctl's.
 */
TEST_F(jiflctl, bbcount_counts_the_commands_system_calls)
{
	char exe[PATH_MAX], calls[16];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	const char *p;
	int others = 0, ret = load_bbcount();

	ASSERT_TRUE(!ret || ret == -EEXIST);
	ASSERT_LT(0, n);
	exe[n] = '\0';
	snprintf(calls, sizeof(calls), "%d", GETPPIDS);
	ASSERT_EQ(0, JIFLCTL("tool", "null"));
	ASSERT_EQ(0, JIFLCTL("bbcount", "--syscalls", "getppid", "--top", "0", "--",
			     exe, "getppid", calls));
	TH_LOG("%.1500s", out);
	/*
	 * The first block of the system call (__do_sys_getppid, or its
	 * alias __x64_sys_getppid) runs once a call, and no other system
	 * call's block runs.
	 */
	EXPECT_EQ(GETPPIDS, bbcount_of("_sys_getppid+0x0\n"));
	for (p = strstr(out, "_sys_"); p; p = strstr(p + 1, "_sys_"))
		others += !!strncmp(p, "_sys_getppid+", 13);
	EXPECT_EQ(0, others);
	EXPECT_STREQ("null", control("tool"));
	EXPECT_STREQ("0", control("enabled"));

	/* every system call: the exec and the exit are there too */
	ASSERT_EQ(0, JIFLCTL("bbcount", "--top", "0", "--", exe, "getppid", calls));
	EXPECT_EQ(GETPPIDS, bbcount_of("_sys_getppid+0x0\n"));
	EXPECT_LT(0, bbcount_of("_sys_execve+0x0\n"));
	EXPECT_LT(0, bbcount_of("_sys_exit_group+0x0\n"));
	EXPECT_NE(NULL, strstr(err, "exit status 0"));

	EXPECT_EQ(1, JIFLCTL("bbcount", "--quiet", "--", "/bin/busybox", "false"));
	EXPECT_STREQ("", err);
	EXPECT_STREQ("null", control("tool"));
	jifl_module_unload("jifl_bbcount");
}

/*
 * JIFL's own code runs natively: a command that reads /proc/jifl/stats
 * and /proc/jifl/control and flushes the cache runs none of JIFL's
 * blocks from the cache (a translated lookup inside a section that
 * holds the cache's lock would take that lock again), while the file
 * system code around them is translated and counted.
 */
TEST_F(jiflctl, jifls_own_code_is_not_translated)
{
	static const char *const own[] = {
		"jifl_", "stats_show+", "control_show+", "control_open+",
		"control_do+", "control_write+", "tool_open+", "tool_write+",
	};
	const char *line;
	int found = 0, ret = load_bbcount();
	unsigned int i;

	ASSERT_TRUE(!ret || ret == -EEXIST);
	ASSERT_EQ(0, JIFLCTL("bbcount", "--top", "0", "--", "/bin/busybox", "sh",
			     "-c", "cat /proc/jifl/stats /proc/jifl/control /proc/jifl/tool"
			     " >/dev/null && echo flush >/proc/jifl/control"));
	line = strstr(out, "\n# ");
	TH_LOG("%s", line ? line + 1 : "(no summary line)");
	EXPECT_LT(0, bbcount_of("vfs_read+0x0\n"));
	EXPECT_LT(0, bbcount_of("vfs_write+0x0\n"));
	for (line = out; *line; line = strchrnul(line, '\n'), line += !!*line) {
		for (i = 0; i < sizeof(own) / sizeof(own[0]); i++) {
			const char *p = strstr(line, own[i]);
			const char *nl = strchrnul(line, '\n');

			if (p && p < nl && p[-1] == ' ') {
				TH_LOG("translated: %.*s", (int)(nl - line), line);
				found++;
			}
		}
	}
	EXPECT_EQ(0, found);
	EXPECT_STREQ("null", control("tool"));
	jifl_module_unload("jifl_bbcount");
}

/* "jiflctl readnull N": read() /dev/null N times */
static int readnull_child(long n)
{
	int fd = open("/dev/null", O_RDONLY);
	char c;

	if (fd < 0)
		return 1;
	while (n-- > 0)
		if (read(fd, &c, 1))
			return 1;
	return 0;
}

/* The row of @symbol (as %pS prints it, "func+0x0/") in the profile in out[], or NULL. */
static const char *profile_row(const char *symbol)
{
	const char *p = strstr(out, symbol), *line;

	if (!p)
		return NULL;
	for (line = p; line > out && line[-1] != '\n'; line--)
		;
	return line;
}

/*
 * The lookup profile with a COMMAND: a read() of /dev/null makes one
 * indirect call, f_op->read, of read_null(), which the lookup resolves
 * until the call site predicts it (the linking work, a few ticks
 * later): the profile counts it as an ind_call of read_null, at least
 * once and at most once a read, in the read()s of the command alone
 * (before indirect calls were predicted: exactly once a read). Off, it
 * counts nothing more; --reset empties it.
 */
TEST_F(jiflctl, profile_counts_the_commands_lookups)
{
	unsigned long long total, kind[7];
	char exe[PATH_MAX], calls[16];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	const char *row;

	ASSERT_LT(0, n);
	exe[n] = '\0';
	snprintf(calls, sizeof(calls), "%d", GETPPIDS);
	ASSERT_EQ(0, JIFLCTL("profile", "--syscalls", "read", "--top", "0", "--",
			     exe, "readnull", calls));
	TH_LOG("%.1500s", out);
	EXPECT_TRUE(strstr(out, "# profile: off; ") == out);
	EXPECT_NE(NULL, strstr(out, "\n# totals: direct "));
	row = profile_row(" read_null+0x0/");
	ASSERT_NE(NULL, row);
	ASSERT_EQ(8, sscanf(row, "%llu %llu %llu %llu %llu %llu %llu %llu", &total,
			    &kind[0], &kind[1], &kind[2], &kind[3], &kind[4], &kind[5],
			    &kind[6]));
	EXPECT_LE(1, kind[2]);			/* ind_call */
	EXPECT_GE(GETPPIDS, kind[2]);
	EXPECT_EQ(kind[2], total);
	EXPECT_EQ(NULL, strstr(out, "_sys_getppid"));
	EXPECT_NE(NULL, strstr(err, "exit status 0"));
	EXPECT_STREQ("0", control("enabled"));

	/* off: the same calls again from the cache count nothing */
	ASSERT_EQ(0, JIFLCTL("run", "--quiet", "--syscalls", "read", "--", exe, "readnull",
			     calls));
	ASSERT_EQ(0, JIFLCTL("profile", "--top", "0"));
	row = profile_row(" read_null+0x0/");
	ASSERT_NE(NULL, row);
	EXPECT_EQ(total, strtoull(row, NULL, 10));

	ASSERT_EQ(0, JIFLCTL("profile", "--reset"));
	ASSERT_EQ(0, JIFLCTL("profile"));
	EXPECT_TRUE(strstr(out, "# profile: off; 0 targets, 0 transfers dropped") == out);
	EXPECT_EQ(2, JIFLCTL("profile", "--reset", "--", exe, "readnull", calls));
}

int main(int argc, char **argv)
{
	if (argc == 3 && !strcmp(argv[1], "getppid"))
		return getppid_child(atol(argv[2]));
	if (argc == 3 && !strcmp(argv[1], "readnull"))
		return readnull_child(atol(argv[2]));
	return guest_harness_run(argc, argv);
}
