// SPDX-License-Identifier: GPL-2.0
/*
 * jiflctl: drive the JIFL code cache (/proc/jifl): turn it on for some
 * system calls and processes, off, flush it, show its counters or the
 * bbcount tool's, or run one command with it.
 */
#include <getopt.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ctl.h"
#include "common/errcode.h"
#include "common/number.h"
#include "common/version.h"

static void usage(FILE *f)
{
	fprintf(f,
		"usage: " PROG " status\n"
		"       " PROG " enable [--syscalls SET] [--pid PID [--children]]\n"
		"       " PROG " disable\n"
		"       " PROG " flush\n"
		"       " PROG " tool NAME\n"
		"       " PROG " stats [--json]\n"
		"       " PROG " bbcount [--top N] [--reset]\n"
		"       " PROG " bbcount [--syscalls SET] [--no-children] [--top N] [--quiet] -- COMMAND [ARGS...]\n"
		"       " PROG " profile [--top N] [--reset]\n"
		"       " PROG " profile [--syscalls SET] [--no-children] [--top N] [--quiet] -- COMMAND [ARGS...]\n"
		"       " PROG " probes\n"
		"       " PROG " run [--syscalls SET] [--no-children] [--quiet] -- COMMAND [ARGS...]\n"
		"       " PROG " cover [--syscalls SET] [--raw] [--size N] [--quiet] -- COMMAND [ARGS...]\n"
		"\n"
		"status: settings and counters; enable: run system calls from the\n"
		"code cache; flush: drop the translations; tool: instrument every\n"
		"block with the kernel's tool NAME (null: none); bbcount: the blocks\n"
		"that tool bbcount counted, most run first, or with COMMAND the blocks\n"
		"COMMAND's system calls ran (with --syscalls, those of SET alone: a\n"
		"per-syscall view); probes: the handlers modules put on instructions\n"
		"with tool probe, and their hits; profile: the transfers that went\n"
		"through the lookup and the exits to native code, by target, most\n"
		"first, or with COMMAND those of COMMAND's system calls; run:\n"
		"COMMAND alone with JIFL (and the processes it creates), then its\n"
		"counters on stderr, and exit as COMMAND did; cover: run COMMAND's\n"
		"process with tool cover collecting (kcov's buffer), then the kernel\n"
		"functions its system calls ran, blocks run most first.\n"
		"\n"
		"  -s, --syscalls SET  all (default), none, or names, numbers and\n"
		"                      ranges: read,write,39,100-110\n"
		"  -p, --pid PID       only this process (default 0: all)\n"
		"  -c, --children      enable: and the processes PID creates from now on\n"
		"  -C, --no-children   run, bbcount, profile: COMMAND's process alone, not\n"
		"                      its children\n"
		"  -j, --json          stats as one JSON object\n"
		"  -q, --quiet         run: no counters; bbcount, profile, cover: no exit\n"
		"                      status line\n"
		"  -t, --top N         bbcount, profile: the N most run blocks or\n"
		"                      targets (default 20; 0: all)\n"
		"  -r, --reset         bbcount, profile: set the counts to 0 instead\n"
		"  -R, --raw           cover: the addresses, one a line, as kcov gives\n"
		"                      them (for addr2line -e vmlinux)\n"
		"  -n, --size N        cover: buffer words, rounded up to a page of them:\n"
		"                      N-1 blocks (default 1048576)\n"
		"  -h, --help          this text\n"
		"      --version       the version\n");
}

static int parse_syscalls(const char *list, struct jifl_sysset *set)
{
	size_t bad = 0, len;
	const char *item;
	int err = jifl_sysset_parse(set, list, &bad);

	if (!*list) {
		fprintf(stderr, PROG ": --syscalls: invalid list '': empty (none is the empty set)\n");
		return -1;
	}
	if (!err)
		return 0;
	if (err != -jifl_err_invalid) {
		jifl_perror(PROG, err, "--syscalls");
		return -1;
	}
	item = list + bad;
	len = strcspn(item, ",");
	fprintf(stderr, PROG ": --syscalls: invalid list '%s': %s '%.*s'\n", list,
		*item >= '0' && *item <= '9' ? "bad number or range" :
		"no system call", (int)len, item);
	return -1;
}

static int parse_pid(const char *s, pid_t *pid)
{
	uint64_t v;

	if (jifl_number_whole(s, 10, INT32_MAX, &v)) {
		fprintf(stderr, PROG ": --pid: not a process id: '%s'\n", s);
		return -1;
	}
	*pid = v;
	return 0;
}

static int parse_top(const char *s, unsigned int *top)
{
	uint64_t v;

	if (jifl_number_whole(s, 10, UINT_MAX, &v)) {
		fprintf(stderr, PROG ": --top: not a number of rows: '%s'\n", s);
		return -1;
	}
	*top = v;
	return 0;
}

/* cover's buffer: whole pages (kcov maps it whole), up to 2^28 words (2 GiB) */
static int parse_size(const char *s, unsigned long *size)
{
	uint64_t v;

	if (jifl_number_whole(s, 0, 1ull << 28, &v) || v < 2) {
		fprintf(stderr, PROG ": cover: --size: '%s' is not a number of words "
			"from 2 to 268435456\n", s);
		return -1;
	}
	*size = (v + 511) & ~511ull;
	return 0;
}

static const char *long_name(const struct option *opts, int c)
{
	for (; opts->name; opts++)
		if (opts->val == c)
			return opts->name;
	return "?";
}

static const struct command {
	const char *name;
	const char *opts;	/* the short options it takes */
	int (*fn)(const struct ctl_opts *o);
} commands[] = {
	{ "status", "", ctl_status },
	{ "enable", "spc", ctl_enable },
	{ "disable", "", ctl_disable },
	{ "flush", "", ctl_flush },
	{ "tool", "", ctl_tool },
	{ "stats", "j", ctl_stats },
	{ "bbcount", "trsqcC", ctl_bbcount },
	{ "profile", "trsqcC", ctl_profile },
	{ "probes", "", ctl_probes },
	{ "run", "sqcC", ctl_run },
	{ "cover", "sqRn", ctl_cover },
};

static int parse_opts(const struct command *cmd, int argc, char **argv,
		      struct ctl_opts *o)
{
	static const struct option opts[] = {
		{ "syscalls", required_argument, NULL, 's' },
		{ "pid", required_argument, NULL, 'p' },
		{ "children", no_argument, NULL, 'c' },
		{ "no-children", no_argument, NULL, 'C' },
		{ "json", no_argument, NULL, 'j' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "top", required_argument, NULL, 't' },
		{ "reset", no_argument, NULL, 'r' },
		{ "raw", no_argument, NULL, 'R' },
		{ "size", required_argument, NULL, 'n' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int run = cmd->fn == ctl_run || cmd->fn == ctl_cover;
	int tool = cmd->fn == ctl_tool, top = 0, runopt = 0, counts, c;

	jifl_sysset_parse(&o->syscalls, "all", NULL);
	o->top = 20;
	o->size = 1 << 20;
	/* '+': the options after COMMAND are its own; ':': we say what is wrong */
	while ((c = getopt_long(argc, argv, "+:s:p:cCjqt:rRn:h", opts, NULL)) != -1) {
		if (c == 'h') {
			usage(stdout);
			exit(0);
		}
		if (c == '?' || c == ':' || !strchr(cmd->opts, c)) {
			if (c == '?')
				fprintf(stderr, PROG ": %s: unknown option '%s'\n",
					cmd->name, argv[optind - 1]);
			else if (c == ':')
				fprintf(stderr, PROG ": %s: '%s' needs an argument\n",
					cmd->name, argv[optind - 1]);
			else
				fprintf(stderr, PROG ": %s: no option --%s\n",
					cmd->name, long_name(opts, c));
			fprintf(stderr, "Try '" PROG " --help'.\n");
			return -1;
		}
		if ((c == 's' && parse_syscalls(optarg, &o->syscalls)) ||
		    (c == 'p' && parse_pid(optarg, &o->pid)) ||
		    (c == 't' && parse_top(optarg, &o->top)) ||
		    (c == 'n' && parse_size(optarg, &o->size)))
			return -1;
		o->raw |= c == 'R';
		o->json |= c == 'j';
		o->quiet |= c == 'q';
		o->reset |= c == 'r';
		top |= c == 't';
		runopt |= c == 's' || c == 'q' || c == 'c' || c == 'C';
		if (c == 'c' || c == 'C')
			o->tree = c == 'c';
	}
	/* bbcount and profile run COMMAND if they have one */
	counts = cmd->fn == ctl_bbcount || cmd->fn == ctl_profile;
	run |= counts && optind < argc;
	if (counts && !run && runopt) {
		fprintf(stderr, PROG ": %s: --syscalls, --children, --no-children and "
			"--quiet go with a COMMAND\n", cmd->name);
		return -1;
	}
	if (counts && run && o->reset) {
		fprintf(stderr, PROG ": %s: --reset and a COMMAND do not go together "
			"(the counts start from 0 for a COMMAND)\n", cmd->name);
		return -1;
	}
	if (o->tree > 0 && !run && !o->pid) {
		fprintf(stderr, PROG ": enable: --children needs --pid\n");
		return -1;
	}
	if (run && o->tree < 0)
		o->tree = 1;
	if (o->reset && top) {
		fprintf(stderr, PROG ": %s: --reset and --top do not go together\n", cmd->name);
		return -1;
	}
	if (tool && argc - optind != 1) {
		fprintf(stderr, PROG ": tool: needs one tool name (null, or one the kernel has)\n");
		return -1;
	}
	if (!run && !tool && optind < argc) {
		fprintf(stderr, PROG ": %s: unexpected argument '%s'\n",
			cmd->name, argv[optind]);
		return -1;
	}
	if (run && optind == argc) {
		fprintf(stderr, PROG ": %s: no command (" PROG " %s -- COMMAND [ARGS...])\n",
			cmd->name, cmd->name);
		return -1;
	}
	o->argv = argv + optind;
	return 0;
}

int main(int argc, char **argv)
{
	struct ctl_opts o = { .tree = -1 };
	const char *name = argc > 1 ? argv[1] : "";
	size_t i;

	if (!strcmp(name, "-h") || !strcmp(name, "--help")) {
		usage(stdout);
		return 0;
	}
	if (!strcmp(name, "--version")) {
		printf(PROG " %s\n", jifl_version());
		return 0;
	}
	for (i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (!strcmp(name, commands[i].name))
			break;
	if (i == sizeof(commands) / sizeof(commands[0])) {
		if (*name)
			fprintf(stderr, PROG ": unknown command '%s'\n", name);
		usage(stderr);
		return EXIT_USAGE;
	}
	if (parse_opts(&commands[i], argc - 1, argv + 1, &o))
		return EXIT_USAGE;
	return commands[i].fn(&o);
}
