// SPDX-License-Identifier: GPL-2.0
/*
 * JIFL cost in the guest, side by side in one run: system-call
 * microbenchmarks (getpid to fork+execve) with every system call native, then from the code
 * cache with the null tool and with the bbcount and edges tools (every
 * block instrumented), and macro workloads: a shell pipeline and, with
 * --apache, Debian's Apache serving a 4 KiB page to ab over loopback
 * (scripts/apache-root.sh installs both in the guest). Prints TSC ticks
 * per call and ratios (QEMU TCG numbers), and JIFL's own counters per
 * call with the null tool: where the extra goes.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/select.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../guest/jifl_module.h"
#include "../guest/proc_util.h"

/*
 * Time in TSC ticks: the guest's clocksource may be jiffies under TCG,
 * far too coarse for one system call.
 */
static double now(void)
{
	return __builtin_ia32_rdtsc();
}

/*
 * Load the module jifl_@name of JIFL's tools with @params (no error if
 * loaded, whatever its parameters then).
 */
static int load_tool(const char *name, const char *params)
{
	char mod[64];
	int ret;

	snprintf(mod, sizeof(mod), "jifl_%s", name);
	ret = jifl_module_load_params(mod, params);
	return ret && ret != -EEXIST ? -1 : 0;
}

/* room for every block of the macro workload */
#define BBCOUNT_PARAMS	"max_blocks=65536"

static int pipefd[2], readyfd[2], sockfd[2], filefd;
static char buf[64], page[4096];

static void b_getpid(void) { syscall(SYS_getpid); }
static void b_pipe(void)
{
	if (write(pipefd[1], buf, 1) != 1 || read(pipefd[0], buf, 1) != 1)
		abort();
}
static void b_openclose(void) { close(open("/proc/self/stat", O_RDONLY)); }
static void b_stat(void) { struct stat st; stat("/tmp", &st); }
static void b_mmap(void)
{
	void *p = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	*(volatile char *)p = 1;
	munmap(p, 4096);
}
static void b_read4k(void)
{
	if (pread(filefd, page, sizeof(page), 0) != sizeof(page))
		abort();
}
static void b_write4k(void)
{
	if (pwrite(filefd, page, sizeof(page), 0) != sizeof(page))
		abort();
}
static void b_getppid(void) { syscall(SYS_getppid); }
static void b_fstatat(void) { struct stat st; fstatat(AT_FDCWD, "/tmp", &st, 0); }
/* readyfd[0] always has a byte to read */
static void b_poll(void)
{
	struct pollfd p = { .fd = readyfd[0], .events = POLLIN };

	if (poll(&p, 1, 0) != 1)
		abort();
}
static void b_select(void)
{
	struct timeval tv = { 0 };
	fd_set r;

	FD_ZERO(&r);
	FD_SET(readyfd[0], &r);
	if (select(readyfd[0] + 1, &r, NULL, NULL, &tv) != 1)
		abort();
}
static void b_socket(void)
{
	if (send(sockfd[0], buf, sizeof(buf), 0) != sizeof(buf) ||
	    recv(sockfd[1], buf, sizeof(buf), 0) != sizeof(buf))
		abort();
}
static void b_fork(void)
{
	pid_t pid = fork();

	if (!pid)
		_exit(0);
	if (pid < 0 || waitpid(pid, NULL, 0) != pid)
		abort();
}
/*
 * This program again, which exits at once (main's --exit), from its copy
 * in tmpfs: executed from the 9p share, each page it faults in is a round
 * trip to the host, and under -icount the guest's idle wait for it shows
 * as millions of "instructions" (the clock jumps to the next timer).
 */
#define EXE_COPY	"/tmp/jifl-bench-exe"

static void b_execve(void)
{
	pid_t pid = fork();

	if (!pid) {
		execl(EXE_COPY, "jifl_bench", "--exit", (char *)NULL);
		_exit(127);
	}
	if (pid < 0 || waitpid(pid, NULL, 0) != pid)
		abort();
}
static void b_macro(void)
{
	if (system("ls -l /bin | sort | wc -l > /dev/null"))
		abort();
}

/*
 * Apache (event MPM, scripts/apache-root.sh) on 127.0.0.1:8080, a child
 * of this program, so that a "tree" selection of JIFL covers it; one
 * call is one run of ab: AB_REQUESTS requests, AB_CONCURRENCY at a
 * time, each on a new connection, all of which must succeed.
 */
#define APACHE		"/usr/sbin/apache2"
#define APACHE_CONF	"/etc/jifl-apache/apache2.conf"
#define APACHE_RUNDIR	"/tmp/jifl-apache"
#define APACHE_PORT	8080
#define AB		"/usr/bin/ab"
#define AB_OUT		"/tmp/jifl-bench-ab.txt"
#define AB_REQUESTS	"200"
#define AB_CONCURRENCY	"4"

static pid_t apache_pid;

/* ab's own "Requests per second", the best since the last take_rps() */
static double ab_rps;

static double take_rps(void)
{
	double r = ab_rps;

	ab_rps = 0;
	return r;
}

/* 0 once a connection to Apache's port succeeds. */
static int apache_listens(void)
{
	struct sockaddr_in sin = {
		.sin_family = AF_INET,
		.sin_port = htons(APACHE_PORT),
		.sin_addr.s_addr = htonl(INADDR_LOOPBACK),
	};
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	int ret;

	if (fd < 0)
		return -1;
	ret = connect(fd, (struct sockaddr *)&sin, sizeof(sin));
	close(fd);
	return ret;
}

static void stop_apache(void)
{
	if (apache_pid <= 0)
		return;
	kill(apache_pid, SIGTERM);
	waitpid(apache_pid, NULL, 0);
	apache_pid = 0;
}

/* Start Apache and wait (up to a minute) until it accepts; 0 or -1. */
static int start_apache(void)
{
	int i;

	if (mkdir(APACHE_RUNDIR, 0755) && errno != EEXIST)
		return -1;
	apache_pid = fork();
	if (apache_pid < 0)
		return -1;
	if (!apache_pid) {
		execl(APACHE, "apache2", "-f", APACHE_CONF, "-DFOREGROUND", (char *)NULL);
		_exit(127);
	}
	atexit(stop_apache);
	for (i = 0; i < 600; i++) {
		if (!apache_listens())
			return 0;
		if (waitpid(apache_pid, NULL, WNOHANG) == apache_pid) {
			apache_pid = 0;
			fprintf(stderr, "jifl-bench: apache2 exited (see %s/error.log)\n",
				APACHE_RUNDIR);
			return -1;
		}
		usleep(100000);
	}
	fprintf(stderr, "jifl-bench: apache2 does not accept on port %d\n", APACHE_PORT);
	return -1;
}

/* The number after @key in ab's report @text, or -1. */
static long ab_field(const char *text, const char *key)
{
	const char *p = strstr(text, key);

	return p ? strtol(p + strlen(key), NULL, 10) : -1;
}

static void b_apache(void)
{
	static char report[8192];
	pid_t pid = fork();
	int status, fd;
	const char *p;
	double rps;

	if (!pid) {
		fd = open(AB_OUT, O_WRONLY | O_CREAT | O_TRUNC, 0600);
		if (fd < 0 || dup2(fd, 1) < 0)
			_exit(126);
		execl(AB, "ab", "-q", "-n", AB_REQUESTS, "-c", AB_CONCURRENCY,
		      "http://127.0.0.1:8080/index.html", (char *)NULL);
		_exit(127);
	}
	if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
	    WEXITSTATUS(status)) {
		fprintf(stderr, "jifl-bench: ab failed (status %#x)\n", status);
		exit(1);
	}
	file_read(AB_OUT, report, sizeof(report));
	if (ab_field(report, "Complete requests:") != atol(AB_REQUESTS) ||
	    ab_field(report, "Failed requests:") != 0 || strstr(report, "Non-2xx")) {
		fprintf(stderr, "jifl-bench: ab: not every request succeeded:\n%s", report);
		exit(1);
	}
	p = strstr(report, "Requests per second:");
	rps = p ? strtod(p + strlen("Requests per second:"), NULL) : 0;
	if (rps > ab_rps)
		ab_rps = rps;
}

static const struct bench {
	const char *name;
	void (*fn)(void);
	int iters;
	int apache;	/* needs Apache: run with --apache only */
} benches[] = {
	{ .name = "getpid", .fn = b_getpid, .iters = 20000 },
	{ .name = "pipe write+read", .fn = b_pipe, .iters = 5000 },
	{ .name = "open+close", .fn = b_openclose, .iters = 3000 },
	{ .name = "stat", .fn = b_stat, .iters = 5000 },
	{ .name = "mmap+touch+munmap", .fn = b_mmap, .iters = 3000 },
	{ .name = "read 4 KiB", .fn = b_read4k, .iters = 5000 },
	{ .name = "write 4 KiB", .fn = b_write4k, .iters = 5000 },
	{ .name = "getppid", .fn = b_getppid, .iters = 20000 },
	{ .name = "fstatat", .fn = b_fstatat, .iters = 5000 },
	{ .name = "poll, a pipe", .fn = b_poll, .iters = 5000 },
	{ .name = "select, a pipe", .fn = b_select, .iters = 5000 },
	{ .name = "socketpair send+recv", .fn = b_socket, .iters = 3000 },
	{ .name = "fork+exit+wait", .fn = b_fork, .iters = 200 },
	{ .name = "fork+execve+wait", .fn = b_execve, .iters = 50 },
	{ .name = "macro: ls|sort|wc", .fn = b_macro, .iters = 10 },
	{ .name = "apache: ab, 200 req", .fn = b_apache, .iters = 2, .apache = 1 },
};

#define NR_BENCHES	(sizeof(benches) / sizeof(benches[0]))

/* the benchmarks this run measures (--only, --apache) */
static int selected[NR_BENCHES];

/*
 * Idle ticks of the guest (idle + iowait in /proc/stat). Under -icount an
 * idle vCPU's clock jumps to the next timer, so a measurement during
 * which the guest idled (waiting for the 9p share, say) counts time, not
 * instructions; such benchmarks are named after the table.
 */
static unsigned long long idle_ticks(void)
{
	unsigned long long user, nice, sys, idle = 0, iowait = 0;
	FILE *f = fopen("/proc/stat", "r");

	if (f && fscanf(f, "cpu %llu %llu %llu %llu %llu", &user, &nice, &sys, &idle,
			&iowait) != 5)
		idle = iowait = 0;
	if (f)
		fclose(f);
	return idle + iowait;
}

static unsigned long long idled[NR_BENCHES];

/* Ticks per call of @b, the best of one round of @b->iters calls. */
static double run(const struct bench *b)
{
	unsigned long long idle0 = idle_ticks();
	double t0 = now(), t;
	int i;

	for (i = 0; i < b->iters; i++)
		b->fn();
	t = (now() - t0) / b->iters;
	idled[b - benches] += idle_ticks() - idle0;
	return t;
}

#ifndef ROUNDS
#define ROUNDS	5
#endif
/* with a trap on every block: slow under TCG, and steady under -icount */
#define KPROBE_ROUNDS	2

/* Copy /proc/self/exe to EXE_COPY; 0 or -1. */
static int copy_exe(void)
{
	int in = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
	int out = open(EXE_COPY, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0755);
	char chunk[65536];
	ssize_t n = -1;

	while (in >= 0 && out >= 0 && (n = read(in, chunk, sizeof(chunk))) > 0)
		if (write(out, chunk, n) != n) {
			n = -1;
			break;
		}
	if (in >= 0)
		close(in);
	if (out >= 0 && close(out))
		n = -1;
	return n == 0 ? 0 : -1;
}

/*
 * Where JIFL's time goes, per call of each benchmark with the null tool
 * (the counters of /proc/jifl/stats, summed over the measured rounds).
 */
static const char *const stat_names[] = {
	"entries", "lookups", "lookup_misses", "predicted_returns",
	"fault_exits", "blocks", "flushes", "invalidations",
};
#define NR_STATS	(sizeof(stat_names) / sizeof(stat_names[0]))

static int read_stats(unsigned long long *v)
{
	char line[128], key[64];
	unsigned long long x;
	FILE *f = fopen("/proc/jifl/stats", "r");
	size_t s, found = 0;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%63[^:]: %llu", key, &x) == 2)
			for (s = 0; s < NR_STATS; s++)
				if (!strcmp(key, stat_names[s])) {
					v[s] = x;
					found++;
				}
	fclose(f);
	return found == NR_STATS ? 0 : -1;
}

/* The blocks bbcount saw run, for kprobes at the same addresses. */
#define MAX_BLOCKS	16384
#define STR(x)		#x
#define XSTR(x)		STR(x)
static unsigned long blocks[MAX_BLOCKS];
static unsigned long long counts[MAX_BLOCKS];
static size_t nr_blocks;

/* bbcount's blocks that ran, and their counts, into blocks[] and counts[]. */
static void save_blocks(void)
{
	char line[256];
	FILE *f = fopen("/proc/jifl/tool", "r");

	nr_blocks = 0;
	while (f && fgets(line, sizeof(line), f) && nr_blocks < MAX_BLOCKS)
		if (sscanf(line, "%llu 0x%lx", &counts[nr_blocks], &blocks[nr_blocks]) == 2)
			nr_blocks++;
	if (f)
		fclose(f);
}

/*
 * bbcount's counts for @n calls of @b in this process and its children
 * (not the guest runner's heartbeat), into blocks[] and counts[]. They
 * include the blocks of the "disable" written to /proc/jifl/control.
 */
static int count_blocks(const struct bench *b, int n)
{
	char tree[32];
	int i;

	snprintf(tree, sizeof(tree), "tree %d", (int)getpid());
	if (proc_write("/proc/jifl/tool", "reset") || jifl_control(tree))
		return -1;
	jifl_control("enable");
	for (i = 0; i < n; i++)
		b->fn();
	jifl_control("disable");
	jifl_control("pid 0");
	save_blocks();
	return 0;
}

/*
 * The blocks @b's calls run, into blocks[]; how many. Those of the
 * "disable" alone are left out: a block counts if it ran more often
 * with the calls than without them.
 */
static size_t bench_blocks(const struct bench *b)
{
	static unsigned long base[MAX_BLOCKS];
	static unsigned long long base_counts[MAX_BLOCKS];
	size_t nr_base, i, j, n = 0;

	if (jifl_control("tool bbcount") || count_blocks(b, 0))
		return 0;
	nr_base = nr_blocks;
	memcpy(base, blocks, nr_base * sizeof(*base));
	memcpy(base_counts, counts, nr_base * sizeof(*base_counts));
	if (count_blocks(b, b->iters))
		return 0;
	jifl_control("tool null");
	for (i = 0; i < nr_blocks; i++) {
		unsigned long long before = 0;

		for (j = 0; j < nr_base; j++)
			if (base[j] == blocks[i])
				before = base_counts[j];
		if (counts[i] > before)
			blocks[n++] = blocks[i];
	}
	nr_blocks = n;
	return n;
}

/* A counting kprobe at each of blocks[]; returns how many, or -1. */
static long kprobe_blocks(const char *name)
{
	char cmd[32], line[128];
	long probes = -1, refused = -1;
	size_t i;
	FILE *f;
	int fd;

	if (proc_write("/proc/jifl_kprobe_blocks", "clear"))
		return -1;
	fd = open("/proc/jifl_kprobe_blocks", O_WRONLY);
	if (fd < 0)
		return -1;
	for (i = 0; i < nr_blocks; i++) {
		snprintf(cmd, sizeof(cmd), "%lx", blocks[i]);
		if (write(fd, cmd, strlen(cmd)) < 0)
			break;
	}
	close(fd);
	f = fopen("/proc/jifl_kprobe_blocks", "r");
	if (f && fgets(line, sizeof(line), f))
		sscanf(line, "probes %ld refused %ld", &probes, &refused);
	if (f)
		fclose(f);
	fprintf(stderr, "jifl-bench: %s: kprobes on %ld of the %zu blocks bbcount saw (%ld refused)\n",
		name, probes, nr_blocks, refused);
	return probes;
}

/* The tools each JIFL column runs with. */
static const char *const tools[] = { "null", "bbcount", "edges" };
#define NR_TOOLS	(sizeof(tools) / sizeof(tools[0]))

static const char *unit(int icount)
{
	return icount ? "instructions per call (QEMU -icount shift=0, one vCPU)" :
			"TSC ticks per call (QEMU TCG, not hardware)";
}

/* The JIFL columns, printed before the kprobes are set (which take long). */
static void print_tools(int icount, const double *native, double jifl[][NR_BENCHES])
{
	size_t i, k;

	printf("jifl-bench: best of %d alternating rounds, %s\n", ROUNDS, unit(icount));
	printf("  %-22s %12s", "benchmark", "native");
	for (k = 0; k < NR_TOOLS; k++)
		printf(" %12s %6s", tools[k], "ratio");
	printf("\n");
	for (i = 0; i < NR_BENCHES; i++) {
		if (!selected[i])
			continue;
		printf("  %-22s %12.0f", benches[i].name, native[i]);
		for (k = 0; k < NR_TOOLS; k++) {
			if (jifl[k][i] == 1e300)
				printf(" %12s %6s", "-", "-");
			else
				printf(" %12.0f %6.2f", jifl[k][i], jifl[k][i] / native[i]);
		}
		printf("\n");
	}
	for (i = 0, k = 0; i < NR_BENCHES; i++)
		if (idled[i]) {
			printf("%s %s (%llu ticks)", k++ ? "," : "jifl-bench: the guest idled during",
			       benches[i].name, idled[i]);
		}
	printf(k ? "\n" : "jifl-bench: the guest never idled while measuring\n");
	fflush(stdout);
}

/*
 * Apache's throughput as ab reports it (its own clock, without its
 * start and exit), the best round of each column; with @kprobes, the
 * kprobes column too. Nothing without the Apache benchmark.
 */
static void print_rps(const double *rps, int kprobes)
{
	size_t k;

	if (!rps[0])
		return;
	printf("jifl-bench: apache, requests per second (ab's figure, best round): native %.0f",
	       rps[0]);
	for (k = 0; k < NR_TOOLS; k++)
		if (rps[k + 1])
			printf(", %s %.0f (%.2f)", tools[k], rps[k + 1], rps[0] / rps[k + 1]);
	if (kprobes && rps[NR_TOOLS + 1])
		printf(", kprobes %.0f (%.2f)", rps[NR_TOOLS + 1], rps[0] / rps[NR_TOOLS + 1]);
	printf("\n");
	fflush(stdout);
}

/* The null tool's counters per call, from the measured rounds. */
static void print_where(unsigned long long where[][NR_STATS])
{
	static const char *const heads[NR_STATS] = {
		"entries", "lookups", "misses", "pred.ret", "faultex",
		"blocks", "flushes", "inval",
	};
	size_t i, s;

	printf("jifl-bench: null tool, per call (/proc/jifl/stats over %d rounds)\n", ROUNDS);
	printf("  %-22s", "benchmark");
	for (s = 0; s < NR_STATS; s++)
		printf(" %9s", heads[s]);
	printf("\n");
	for (i = 0; i < NR_BENCHES; i++) {
		double calls = (double)benches[i].iters * ROUNDS;

		if (!selected[i])
			continue;
		printf("  %-22s", benches[i].name);
		for (s = 0; s < NR_STATS; s++)
			printf(" %9.2f", where[i][s] / calls);
		printf("\n");
	}
	fflush(stdout);
}

/*
 * What bbcount counted: blocks run, the original instructions they
 * hold, the blocks by how they end (the listing's "jcrg-"), and blocks
 * it had no counter for.
 */
#define ENDS	"jcrg-"
struct tally {
	double blocks, insns, end[sizeof(ENDS) - 1];
	unsigned long long dropped;
};

static int tally_tool(struct tally *t)
{
	static char text[8 << 20];
	unsigned long long count;
	const char *line, *at;
	unsigned int insns;
	char end;

	memset(t, 0, sizeof(*t));
	file_read("/proc/jifl/tool", text, sizeof(text));
	if (!*text)
		return -1;
	for (line = text; line && *line; line = strchr(line, '\n'), line = line ? line + 1 : NULL) {
		if (sscanf(line, "# blocks %*u, not counted %llu", &t->dropped) == 1)
			continue;
		if (sscanf(line, "%llu 0x%*x %*u %u %c ", &count, &insns, &end) != 3 ||
		    !(at = strchr(ENDS, end)))
			continue;
		t->blocks += count;
		t->insns += (double)count * insns;
		t->end[at - ENDS] += count;
	}
	return 0;
}

/*
 * Where the instructions go, per call: bbcount's counts of @b's calls
 * (less those of the "disable" that ends them) say how many original
 * instructions ran from the cache, in how many blocks, ending how;
 * against the null tool's and native instructions (icount). 0, or -1
 * when bbcount cannot count.
 */
static int where_insns(const struct bench *b, struct tally *t)
{
	struct tally base;
	size_t e;

	if (count_blocks(b, 0) || tally_tool(&base) || count_blocks(b, b->iters) ||
	    tally_tool(t))
		return -1;
	t->blocks = (t->blocks - base.blocks) / b->iters;
	t->insns = (t->insns - base.insns) / b->iters;
	for (e = 0; e < sizeof(t->end) / sizeof(t->end[0]); e++)
		t->end[e] = (t->end[e] - base.end[e]) / b->iters;
	return 0;
}

/*
 * The instructions a call adds with the null tool ("added", icount),
 * next to what the translated code runs per call: original
 * instructions from the cache ("in cache"; native runs those and its
 * entry code, noinstr text, the context switch), blocks, and the
 * blocks' ends that the translation makes longer: a conditional branch
 * gets a jmp after it, a call is a push and a jmp, a return five
 * instructions when predicted.
 */
static void print_insns(const double *native, const double *null)
{
	struct tally t;
	size_t i;

	if (jifl_control("tool bbcount"))
		return;
	printf("jifl-bench: where the instructions go, per call (icount; bbcount's counts)\n");
	printf("  %-22s %10s %10s %8s %10s %8s %7s %7s %7s %7s %7s\n", "benchmark",
	       "native", "null", "added", "in cache", "blocks", "jcc", "call", "ret",
	       "jmp", "cut");
	for (i = 0; i < NR_BENCHES; i++) {
		if (!selected[i] || benches[i].apache)
			continue;
		if (where_insns(&benches[i], &t)) {
			printf("  %-22s bbcount cannot count\n", benches[i].name);
			continue;
		}
		printf("  %-22s %10.0f %10.0f %8.0f %10.0f %8.1f %7.1f %7.1f %7.1f %7.1f %7.1f%s\n",
		       benches[i].name, native[i], null[i], null[i] - native[i], t.insns,
		       t.blocks, t.end[0], t.end[1], t.end[2], t.end[3], t.end[4],
		       t.dropped ? " (blocks not counted)" : "");
		fflush(stdout);
	}
	jifl_control("tool null");
}

/*
 * A counting kprobe on every block a benchmark runs against bbcount:
 * what instrumenting every block adds to the native cost, each way.
 * The heading, then a row as each benchmark is measured (a slow run
 * that is cut short keeps its rows).
 */
static void print_kprobes_head(int icount)
{
	printf("jifl-bench: kprobes on every block each benchmark runs, best of %d rounds, %s\n",
	       KPROBE_ROUNDS, unit(icount));
	printf("  %-22s %12s %12s %12s %14s\n", "benchmark", "native", "bbcount", "kprobes",
	       "added k/b");
	fflush(stdout);
}

static void print_kprobes_row(size_t i, double native, double bbcount, double kprobes)
{
	printf("  %-22s %12.0f", benches[i].name, native);
	if (bbcount == 1e300 || kprobes == 1e300 || bbcount <= native)
		printf(" %12s %12s %14s\n", "-", "-", "-");
	else
		printf(" %12.0f %12.0f %14.1f\n", bbcount, kprobes,
		       (kprobes - native) / (bbcount - native));
	fflush(stdout);
}

/*
 * With --icount the guest runs under QEMU's -icount shift=0, where the
 * TSC advances by one per executed instruction: the ticks are
 * instructions, reproducible to about 1%. --no-kprobes leaves the
 * kprobes comparison out; --apache adds the Apache benchmark; --only
 * NAME (repeatable) measures only the benchmarks whose names start with
 * NAME. The kprobes of one benchmark are set while
 * it alone runs: a trap on every block of every benchmark at once made
 * the icount guest hundreds of times slower everywhere.
 */
int main(int argc, char **argv)
{
	int icount = 0, with_kprobes = 1, with_apache = 0, only = 0, a;
	double native[NR_BENCHES], jifl[NR_TOOLS][NR_BENCHES], kprobes[NR_BENCHES], t;
	/* Apache's requests per second: native, each tool, with kprobes */
	double rps[NR_TOOLS + 2] = { 0 }, r;
	unsigned long long before[NR_STATS], after[NR_STATS], base[NR_STATS];
	static unsigned long long where[NR_BENCHES][NR_STATS];
	int have_stats;
	size_t i, k, s;
	int round;

	for (a = 1; a < argc; a++) {
		if (!strcmp(argv[a], "--exit"))
			return 0;
		if (!strcmp(argv[a], "--only") && a + 1 < argc) {
			for (i = 0, a++; i < NR_BENCHES; i++)
				selected[i] |= !strncmp(benches[i].name, argv[a], strlen(argv[a]));
			only = 1;
			continue;
		}
		icount |= !strcmp(argv[a], "--icount");
		with_kprobes &= !!strcmp(argv[a], "--no-kprobes");
		with_apache |= !strcmp(argv[a], "--apache");
		if (strcmp(argv[a], "--icount") && strcmp(argv[a], "--no-kprobes") &&
		    strcmp(argv[a], "--apache")) {
			fprintf(stderr, "usage: jifl_bench [--icount] [--no-kprobes] [--apache] [--only NAME]...\n");
			return 2;
		}
	}
	for (i = 0; i < NR_BENCHES; i++) {
		selected[i] = only ? selected[i] : 1;
		selected[i] &= with_apache || !benches[i].apache;
	}
	if (with_apache && start_apache())
		return 1;
	/*
	 * Work in tmpfs: the shell of the macro workload looks at its
	 * working directory ($PWD too), and on the 9p share that is a wait
	 * for the host.
	 */
	if (chdir("/tmp") || setenv("PWD", "/tmp", 1)) {
		perror("jifl-bench: /tmp");
		return 1;
	}
	filefd = open("/tmp/jifl-bench.data", O_RDWR | O_CREAT | O_TRUNC, 0600);
	if (pipe(pipefd) || pipe(readyfd) || write(readyfd[1], buf, 1) != 1 ||
	    socketpair(AF_UNIX, SOCK_STREAM, 0, sockfd) || filefd < 0 ||
	    pwrite(filefd, page, sizeof(page), 0) != sizeof(page) || copy_exe()) {
		perror("jifl-bench: setup");
		return 1;
	}
	if (jifl_control("syscalls all") || jifl_control("disable")) {
		perror("/proc/jifl/control");
		return 1;
	}
	/* what reading the counters itself adds, taken off each reading */
	jifl_control("enable");
	have_stats = !read_stats(before) && !read_stats(before) && !read_stats(after);
	for (s = 0; s < NR_STATS; s++)
		base[s] = after[s] - before[s];
	jifl_control("disable");
	for (i = 0; i < NR_BENCHES; i++) {
		native[i] = kprobes[i] = 1e300;
		for (k = 0; k < NR_TOOLS; k++)
			jifl[k][i] = 1e300;
	}
	/*
	 * For each tool, native and JIFL rounds alternate, so that both
	 * see the same machine; the first round of each warms up (QEMU
	 * translates the kernel's code, JIFL fills its cache) and is not
	 * counted. A tool that cannot be loaded leaves its column empty.
	 */
	for (k = 0; k < NR_TOOLS; k++) {
		char cmd[64];

		snprintf(cmd, sizeof(cmd), "tool %s", tools[k]);
		if ((k && load_tool(tools[k], k == 1 ? BBCOUNT_PARAMS : "")) ||
		    jifl_control(cmd)) {
			fprintf(stderr, "jifl-bench: no tool %s\n", tools[k]);
			continue;
		}
		for (round = 0; round <= ROUNDS; round++) {
			for (i = 0; i < NR_BENCHES; i++) {
				if (!selected[i])
					continue;
				jifl_control("disable");
				t = run(&benches[i]);
				if (round && t < native[i])
					native[i] = t;
				r = take_rps();
				if (round && r > rps[0])
					rps[0] = r;
				jifl_control("enable");
				/* "where it goes" is the null tool's (k 0) */
				have_stats &= k || !read_stats(before);
				t = run(&benches[i]);
				have_stats &= k || !read_stats(after);
				if (round && t < jifl[k][i])
					jifl[k][i] = t;
				r = take_rps();
				if (round && r > rps[k + 1])
					rps[k + 1] = r;
				for (s = 0; round && k == 0 && s < NR_STATS; s++)
					if (after[s] - before[s] > base[s])
						where[i][s] += after[s] - before[s] - base[s];
			}
		}
		jifl_control("disable");
		/* progress, and output for the guest runner's silence check */
		fprintf(stderr, "jifl-bench: tool %s measured\n", tools[k]);
	}
	print_tools(icount, native, jifl);
	print_rps(rps, 0);
	if (have_stats)
		print_where(where);
	if (icount && !load_tool("bbcount", BBCOUNT_PARAMS))
		print_insns(native, jifl[0]);
	jifl_control("tool null");
	/*
	 * Natively, a counting kprobe on every block each benchmark runs
	 * (those bbcount counted in one round of it, with JIFL on), the
	 * kprobes of one benchmark at a time.
	 */
	if (with_kprobes && !load_tool("bbcount", BBCOUNT_PARAMS) &&
	    !load_tool("kprobe_blocks", "max_probes=" XSTR(MAX_BLOCKS))) {
		print_kprobes_head(icount);
		for (i = 0; i < NR_BENCHES; i++) {
			if (!selected[i])
				continue;
			if (bench_blocks(&benches[i]) && kprobe_blocks(benches[i].name) > 0) {
				take_rps();
				for (round = 0; round <= KPROBE_ROUNDS; round++) {
					t = run(&benches[i]);
					if (round && t < kprobes[i])
						kprobes[i] = t;
					r = take_rps();
					if (round && r > rps[NR_TOOLS + 1])
						rps[NR_TOOLS + 1] = r;
				}
				/* before the next one's blocks: JIFL runs kprobed code natively */
				proc_write("/proc/jifl_kprobe_blocks", "clear");
			}
			print_kprobes_row(i, native[i], jifl[1][i], kprobes[i]);
		}
		print_rps(rps, 1);
	}
	return 0;
}
