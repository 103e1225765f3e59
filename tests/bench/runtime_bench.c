// SPDX-License-Identifier: GPL-2.0
/*
 * JIT runtimes under "flowjit record", in the guest (OpenJDK from the
 * host's 9p share, see scripts/qemu-run.sh): each runtime's
 * program run plainly and recorded, alternately, ROUNDS times each;
 * the cost as the ratio of TSC ticks (instructions under QEMU -icount,
 * time under TCG), and what the recording holds per second of run:
 * records and bytes of code snapshots.
 *
 *   runtime_bench FLOWJIT [--icount]
 *
 * A runtime whose program is not in the guest is skipped with a line
 * that says so; one whose output differs tracked and untracked is an
 * error (exit status 1).
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <x86intrin.h>

#define ROUNDS	3
#define FJFILE	"/tmp/runtime_bench.fj"
#define OUTFILE	"/tmp/runtime_bench.out"
#define ERRFILE	"/tmp/runtime_bench.err"

static const char php_script[] =
	"<?php\n"
	"function f($x) { return ($x * 3 + 1) % 7; }\n"
	"$s = 0;\n"
	"for ($i = 0; $i < 3000000; $i++) { $s += f($i); }\n"
	"echo $s, \"\\n\";\n";

struct runtime {
	const char *name;
	char *argv[16];
};

static struct runtime runtimes[] = {
	{ "luajit", { "/usr/bin/luajit", "/mnt/host/hot.lua", NULL } },
	{ "node", { "/usr/bin/node", "-e",
		    "function f(x) { return (x * 3 + 1) % 7; } "
		    "let s = 0; for (let i = 0; i < 3000000; i++) s += f(i); "
		    "console.log(s);", NULL } },
	{ "php", { "/usr/bin/php", "-n", "-d", "display_startup_errors=0",
		   "-d", "zend_extension=opcache", "-d", "opcache.enable_cli=1",
		   "-d", "opcache.jit=tracing", "-d", "opcache.jit_buffer_size=32M",
		   "-d", "opcache.file_update_protection=0", "/tmp/runtime_bench.php",
		   NULL } },
	/* HotSpot's startup: its interpreter and the methods compiled then */
	{ "java", { "/usr/lib/jvm/java-17-openjdk-amd64/bin/java", "-Xshare:off",
		    "-XX:+UseSerialGC", "-XX:+PrintFlagsFinal", "-version", NULL } },
};

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int slurp(const char *path, char *buf, size_t size)
{
	int fd = open(path, O_RDONLY);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = read(fd, buf, size - 1);
	close(fd);
	if (n < 0)
		return -1;
	buf[n] = '\0';
	return 0;
}

/* Run @argv, stdout and stderr to files; 0 if it exited 0. */
static int run(char *const argv[], uint64_t *ticks, double *secs)
{
	uint64_t t0 = __rdtsc();
	double s0 = now();
	int st;
	pid_t pid = fork();

	if (pid == 0) {
		int o = open(OUTFILE, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		int e = open(ERRFILE, O_WRONLY | O_CREAT | O_TRUNC, 0644);

		dup2(o, 1);
		dup2(e, 2);
		execv(argv[0], argv);
		_exit(127);
	}
	if (pid < 0 || waitpid(pid, &st, 0) != pid)
		return -1;
	*ticks += __rdtsc() - t0;
	*secs += now() - s0;
	return WIFEXITED(st) && !WEXITSTATUS(st) ? 0 : -1;
}

int main(int argc, char **argv)
{
	const char *mode = argc > 2 && !strcmp(argv[2], "--icount") ? "icount" : "tcg";
	static char want[65536], got[65536], err[4096];
	int fd, bad = 0;
	size_t r, i;

	if (argc < 2) {
		fprintf(stderr, "usage: runtime_bench FLOWJIT [--icount]\n");
		return 2;
	}
	fd = open("/tmp/runtime_bench.php", O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0 || write(fd, php_script, strlen(php_script)) != (ssize_t)strlen(php_script))
		return 1;
	close(fd);
	printf("runtime-bench (%s): %d rounds each; ticks: TSC (%s)\n", mode, ROUNDS,
	       strcmp(mode, "icount") ? "time" : "instructions");
	printf("  %-8s %14s %14s %6s %10s %14s\n", "runtime", "plain ticks", "recorded ticks",
	       "ratio", "records/s", "snapshot B/s");
	for (r = 0; r < sizeof(runtimes) / sizeof(runtimes[0]); r++) {
		struct runtime *rt = &runtimes[r];
		char *rec[24] = { argv[1], "record", "-f", "-o", FJFILE, "--" };
		uint64_t plain = 0, tracked = 0, records = 0, snaps = 0, n, m;
		double psecs = 0, tsecs = 0;
		const char *p;

		if (access(rt->argv[0], X_OK)) {
			printf("  %-8s not in the guest (%s)\n", rt->name, rt->argv[0]);
			continue;
		}
		for (i = 0; rt->argv[i]; i++)
			rec[6 + i] = rt->argv[i];
		/* a warm-up run: QEMU translates the runtime's own code once */
		if (run(rt->argv, &n, &psecs) || slurp(OUTFILE, want, sizeof(want))) {
			printf("  %-8s failed to run\n", rt->name);
			bad = 1;
			continue;
		}
		psecs = 0;
		for (i = 0; i < ROUNDS; i++) {
			if (run(rt->argv, &plain, &psecs) ||
			    run(rec, &tracked, &tsecs) || slurp(OUTFILE, got, sizeof(got)) ||
			    slurp(ERRFILE, err, sizeof(err)))
				break;
			if (strcmp(want, got)) {
				printf("  %-8s output differs when recorded\n", rt->name);
				break;
			}
			p = strstr(err, "wrote ");
			if (!p || sscanf(p, "wrote %lu records (%lu code snapshots)", &n, &m) != 2)
				break;
			records += n;
			snaps += m;
		}
		if (i < ROUNDS) {
			printf("  %-8s failed (round %zu): %s\n", rt->name, i + 1, err);
			bad = 1;
			continue;
		}
		printf("  %-8s %14lu %14lu %6.2f %10.0f %14.0f\n", rt->name,
		       (unsigned long)(plain / ROUNDS), (unsigned long)(tracked / ROUNDS),
		       (double)tracked / plain, records / tsecs, snaps * 4096.0 / tsecs);
	}
	unlink(FJFILE);
	return bad;
}
