// SPDX-License-Identifier: GPL-2.0
/*
 * flowjit: record the run-time code of a program with FlowJIT, report
 * on recordings, and turn them into perf jitdump files.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/flowjit.h>

#include "jitdump.h"
#include "common/number.h"
#include "record.h"
#include "report.h"
#include "common/version.h"

#define PROG "flowjit"
#define EXIT_USAGE 2

static void usage(FILE *f)
{
	fprintf(f,
		"usage: " PROG " record [-o FILE [-f]] [--all-exec] [--bufsize BYTES] [-u USER] -- COMMAND [ARGS...]\n"
		"       " PROG " record [-o FILE [-f]] [--all-exec] [--bufsize BYTES] -p PID\n"
		"       " PROG " report [--events] [FILE]\n"
		"       " PROG " jitdump [-i PERF_DATA] [-o OUTPUT] [-d DIR] [-q] [FILE]\n"
		"\n"
		"record: run COMMAND (or attach to process PID until it exits or SIGINT)\n"
		"with FlowJIT tracking of its run-time code pages, and of the processes\n"
		"it creates, until the last of them exits; write the kernel's events and\n"
		"code snapshots to FILE.\n"
		"report: summarize FILE, or list its records with --events.\n"
		"jitdump: write FILE's code snapshots as perf jitdump files DIR/jit-PID.dump\n"
		"and OUTPUT, a copy of the run's PERF_DATA with their markers, for\n"
		"\"perf inject --jit -i OUTPUT\" (FILE: default flowjit.data).\n"
		"\n"
		"  -o, --output FILE     data file (default: flowjit.data), created 0600;\n"
		"                        jitdump: the perf.data copy (default: perf.jitdump.data)\n"
		"  -i, --input FILE      jitdump: the run's perf.data (default: perf.data)\n"
		"  -d, --dir DIR         jitdump: where jit-PID.dump go (default: jitdump)\n"
		"  -f, --force           record: replace FILE if it exists\n"
		"  -p, --pid PID         attach to a running process\n"
		"  -u, --user USER       run COMMAND as USER (a name or uid), with its\n"
		"                        group and supplementary groups (root)\n"
		"  -a, --all-exec        snapshot every executable page, file text too\n"
		"  -b, --bufsize BYTES   set the kernel's event ring size (root)\n"
		"  -q, --quiet           no summary on stderr\n"
		"  -e, --events          report: one line per record\n"
		"  -h, --help            this text\n"
		"      --version         the version\n");
}

/* -h: the usage on stdout, status 0; a bad option: on stderr, EXIT_USAGE. */
static int help_or_usage(int c)
{
	usage(c == 'h' ? stdout : stderr);
	return c == 'h' ? 0 : EXIT_USAGE;
}

/* The FILE argument of command @cmd (default flowjit.data), or NULL: more than one. */
static const char *file_arg(int argc, char **argv, const char *cmd)
{
	if (argc - optind > 1) {
		fprintf(stderr, PROG ": %s: one file at a time\n", cmd);
		return NULL;
	}
	return optind < argc ? argv[optind] : "flowjit.data";
}

static int parse_num(const char *opt, const char *s, unsigned long long *v)
{
	uint64_t n;

	if (jifl_number_whole(s, 0, UINT64_MAX, &n) || !n) {
		fprintf(stderr, PROG ": %s: not a positive number: '%s'\n", opt, s);
		return -1;
	}
	*v = n;
	return 0;
}

static int cmd_record(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "pid", required_argument, NULL, 'p' },
		{ "user", required_argument, NULL, 'u' },
		{ "all-exec", no_argument, NULL, 'a' },
		{ "bufsize", required_argument, NULL, 'b' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "force", no_argument, NULL, 'f' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct fj_record_opts o = { .output = "flowjit.data" };
	unsigned long long pid;
	int c;

	/* '+': the command's own options are not ours */
	while ((c = getopt_long(argc, argv, "+o:p:u:ab:qfh", opts, NULL)) != -1) {
		switch (c) {
		case 'o':
			o.output = optarg;
			break;
		case 'p':
			if (parse_num("--pid", optarg, &pid) || pid > 0x7fffffff)
				return EXIT_USAGE;
			o.pid = pid;
			break;
		case 'u':
			o.user = optarg;
			break;
		case 'a':
			o.flags |= FLOWJIT_F_ALL_EXEC;
			break;
		case 'b':
			if (parse_num("--bufsize", optarg, &o.bufsize))
				return EXIT_USAGE;
			break;
		case 'q':
			o.quiet = 1;
			break;
		case 'f':
			o.force = 1;
			break;
		default:
			return help_or_usage(c);
		}
	}
	if (!o.pid == (optind == argc)) {
		fprintf(stderr, PROG ": record: %s\n", o.pid ?
			"give either -p PID or a command, not both" :
			"no command to run (flowjit record -- COMMAND [ARGS...])");
		return EXIT_USAGE;
	}
	if (o.pid && o.user) {
		fprintf(stderr, PROG ": record: --user runs a command; -p attaches to one\n");
		return EXIT_USAGE;
	}
	o.argv = argv + optind;
	return fj_record(&o);
}

static int cmd_jitdump(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "input", required_argument, NULL, 'i' },
		{ "output", required_argument, NULL, 'o' },
		{ "dir", required_argument, NULL, 'd' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct fj_jitdump_opts o = {
		.perf_in = "perf.data",
		.perf_out = "perf.jitdump.data",
		.dir = "jitdump",
	};
	int c;

	while ((c = getopt_long(argc, argv, "i:o:d:qh", opts, NULL)) != -1) {
		switch (c) {
		case 'i':
			o.perf_in = optarg;
			break;
		case 'o':
			o.perf_out = optarg;
			break;
		case 'd':
			o.dir = optarg;
			break;
		case 'q':
			o.quiet = 1;
			break;
		default:
			return help_or_usage(c);
		}
	}
	o.input = file_arg(argc, argv, "jitdump");
	return o.input ? fj_jitdump(&o) : EXIT_USAGE;
}

static int cmd_report(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "events", no_argument, NULL, 'e' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *file;
	int c, events = 0;

	while ((c = getopt_long(argc, argv, "eh", opts, NULL)) != -1) {
		switch (c) {
		case 'e':
			events = 1;
			break;
		default:
			return help_or_usage(c);
		}
	}
	file = file_arg(argc, argv, "report");
	return file ? fj_report(file, events, stdout) : EXIT_USAGE;
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		usage(stderr);
		return EXIT_USAGE;
	}
	if (!strcmp(argv[1], "record"))
		return cmd_record(argc - 1, argv + 1);
	if (!strcmp(argv[1], "report"))
		return cmd_report(argc - 1, argv + 1);
	if (!strcmp(argv[1], "jitdump"))
		return cmd_jitdump(argc - 1, argv + 1);
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
		usage(stdout);
		return 0;
	}
	if (!strcmp(argv[1], "--version")) {
		printf(PROG " %s\n", jifl_version());
		return 0;
	}
	fprintf(stderr, PROG ": unknown command '%s' (record, report, jitdump)\n", argv[1]);
	usage(stderr);
	return EXIT_USAGE;
}
