// SPDX-License-Identifier: GPL-2.0
/*
 * jifl-decode: the exact instruction flow of an Intel PT trace, JIT code
 * included (Documentation/decode.rst).
 */
#include <getopt.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/errcode.h"
#include "fields.h"
#include "filter.h"
#include "losses.h"
#include "common/number.h"
#include "printer.h"
#include "progress.h"
#include "ptconfig.h"
#include "session_decode.h"
#include "common/version.h"

#define MAX_FILES	64

static const char usage[] =
"usage: jifl-decode -i perf.data [--flowjit FILE] [--insn|--branches|--calls|--stats] [option]...\n"
"       jifl-decode --pt FILE [--elf FILE[:BASE]]... [--raw FILE[:FROM[-TO]]:BASE]...\n"
"                   [--cpu F/M[/S]] [--filter:addrN_cfg CFG]... [mode] [option]...\n"
"\n"
"  -i, --input FILE     perf.data with an Intel PT trace (perf record -e intel_pt//u)\n"
"  -f, --flowjit FILE   FlowJIT data of the same run: code of JIT pages, by time\n"
"      --buildid-dir DIR perf's build-id cache, where the vDSO's code is found\n"
"                       (default: $PERF_BUILDID_DIR, else ~/.debug)\n"
"      --insn           print every instruction (default)\n"
"      --branches       print every taken branch\n"
"      --calls          print calls and returns\n"
"      --stats          print only the statistics\n"
"      --pt FILE        raw mode, as ptxed: a PT packet stream instead of perf.data\n"
"      --elf FILE[:BASE]\n"
"                       raw mode: an ELF file's loadable segments, the lowest at\n"
"                       BASE (default: all at their link addresses)\n"
"      --raw FILE[:FROM[-TO]]:BASE\n"
"                       raw mode: a file's bytes (FROM to TO only) at address BASE\n"
"      --cpu F/M[/S]|auto|none\n"
"                       raw mode: the processor (family/model/stepping) whose\n"
"                       errata libipt works around; default: none\n"
"      --filter:addrN_cfg CFG, --filter:addrN_a ADDR, --filter:addrN_b ADDR\n"
"                       raw mode: the address filter of the trace, N from 0 to 3\n"
"                       (IA32_RTIT_CTL.ADDRn_CFG, IA32_RTIT_ADDRn_A and _B)\n"
"      --progress       show the progress on stderr (default: when it is a terminal\n"
"                       the listing does not go to)\n"
"      --no-progress    never show the progress\n"
"      --decoder KIND   libipt's decoder: block (the default) or insn (instruction\n"
"                       flow)\n"
"  -j, --jobs N         threads decoding the trace's queues (per CPU or per\n"
"                       thread) at once, the output still in time order;\n"
"                       default: the CPUs online but one, at most 8 (1 for\n"
"                       --stats alone); 1: one by one\n"
"      --pid PID[,PID...]  only these processes' instructions and gaps\n"
"      --tid TID[,TID...]  only these threads'\n"
"      --time FROM,TO   only those at times FROM to TO (seconds, as printed; either\n"
"                       may be empty: --time 1234.5,)\n"
"  -F, --fields LIST    the columns of --insn, of comm,tid,pid,cpu,time,ip,sym,dso,\n"
"                       insn\n"
"                       (perf script -F names; default: time,tid,ip,sym,insn)\n"
"  -h, --help           this text\n"
"      --version        the version\n";

struct mem_file {
	const char *path;
	uint64_t from, to;		/* --raw: the bytes of the file; to 0: its end */
	uint64_t base;
	int elf;
};

enum progress { PROGRESS_AUTO, PROGRESS_ON, PROGRESS_OFF };

struct options {
	const char *input, *flowjit, *pt, *buildid_dir;
	enum jifl_print_mode mode;
	int stats;
	enum progress progress;
	const char *decoder;		/* NULL: block */
	unsigned int jobs;		/* -j; 0: the CPUs online */
	struct mem_file files[MAX_FILES];
	int nr_files;
	struct pt_config proc;		/* the processor: --cpu, --filter:* */
	const char *cpu;		/* --cpu's value, or NULL */
	int have_proc;			/* --cpu or --filter given */
	struct jifl_filter filter;
	struct jifl_fields fields;
	int have_fields;
};

static int __attribute__((format(printf, 1, 2))) fail(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fputs("jifl-decode: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
	return 1;
}

/* A number in C syntax, all of @s. */
static int address(const char *s, uint64_t *v)
{
	return jifl_number_whole(s, 0, UINT64_MAX, v) ? -1 : 0;
}

/*
 * The FROM[-TO] of ptxed's --raw FILE[:FROM[-TO]]: a suffix that is no
 * range is part of the file name, as ptxed takes it.
 */
static int parse_range(struct mem_file *m, char *arg)
{
	char *colon = strrchr(arg, ':'), *dash;

	if (!colon)
		return 0;
	dash = strchr(colon + 1, '-');
	if (dash)
		*dash = '\0';
	if (address(colon + 1, &m->from) || (dash && address(dash + 1, &m->to))) {
		if (dash)
			*dash = '-';
		m->from = m->to = 0;
		return 0;
	}
	*colon = '\0';
	if (dash && m->to <= m->from)
		return fail("--raw: '%s': TO (0x%" PRIx64 ") must be above FROM (0x%" PRIx64 ")",
			    arg, m->to, m->from) + 1;
	return 0;
}

/* "FILE[:FROM[-TO]]:BASE" (--raw) or "FILE[:BASE]" (--elf); numbers in C syntax. */
static int parse_file(struct options *o, char *arg, int elf)
{
	const char *opt = elf ? "--elf" : "--raw";
	struct mem_file *m = &o->files[o->nr_files];
	char *colon = strrchr(arg, ':');

	if (o->nr_files == MAX_FILES)
		return fail("%s: at most %d files", opt, MAX_FILES) + 1;
	memset(m, 0, sizeof(*m));
	m->path = arg;
	m->elf = elf;
	if (colon) {
		if (address(colon + 1, &m->base))
			return fail("%s: '%s': BASE must be an address (0x...)", opt, arg) + 1;
		*colon = '\0';
	} else if (!elf) {
		return fail("--raw: expected FILE[:FROM[-TO]]:BASE, got '%s'", arg) + 1;
	}
	if (!elf && parse_range(m, arg))
		return 2;
	if (!*arg)
		return fail("%s: no file name in '%s'", opt, arg) + 1;
	o->nr_files++;
	return 0;
}

/* ptxed's --filter:addrN_cfg, _a and _b: option @i of them, N = @i / 3. */
static int parse_filter(struct options *o, int i, const char *arg)
{
	static const char *const what[] = { "cfg", "a", "b" };

	o->have_proc = 1;
	if (jifl_ptconfig_set_filter(&o->proc, i / 3, i % 3, arg))
		return fail("--filter:addr%d_%s: expected %s, got '%s'", i / 3, what[i % 3],
			    i % 3 ? "an address (0x...)" : "a number from 0 to 15", arg) + 1;
	return 0;
}

static int parse_cpu(struct options *o, const char *arg)
{
	o->have_proc = 1;
	o->cpu = arg;
	if (jifl_ptconfig_parse_cpu(&o->proc.cpu, arg))
		return fail("--cpu: expected FAMILY/MODEL[/STEPPING] (6/142/10), auto or none, "
			    "got '%s'", arg) + 1;
	return 0;
}

/* --pid or --tid: "ID[,ID...]". */
static int parse_ids(struct jifl_id_list *l, const char *opt, const char *id,
		     const char *arg)
{
	int err = jifl_filter_add_ids(l, arg);

	if (err == -jifl_err_nomem)
		return fail("%s", "out of memory") + 1;
	if (err)
		return fail("%s: expected %s[,%s...] (decimal numbers), got '%s'", opt,
			    id, id, arg) + 1;
	return 0;
}

static int parse_time(struct jifl_filter *f, const char *arg)
{
	if (jifl_filter_set_time(f, arg))
		return fail("--time: expected FROM,TO in seconds (1234.5,1240.25; either may "
			    "be empty), got '%s'", arg) + 1;
	if (f->from > f->to)
		return fail("--time: FROM is after TO in '%s'", arg) + 1;
	return 0;
}

static int parse_fields(struct options *o, const char *arg)
{
	size_t bad;

	if (jifl_fields_parse(&o->fields, arg, &bad))
		return fail("-F: unknown or repeated field '%.*s' in '%s' (fields: comm,tid,"
			    "pid,cpu,time,ip,sym,dso,insn)", (int)strcspn(arg + bad, ","),
			    arg + bad, arg) + 1;
	o->have_fields = 1;
	return 0;
}

/*
 * Each thread has a session of its own: by default one per CPU but the
 * one the main thread merges and prints on (with two CPUs, two decoding
 * threads and the printing one made a per-CPU --insn listing take
 * 0.17 s against 0.13 s with one), at most 8, and one for --stats
 * alone, where handing the items over to the merge costs more than
 * decoding the queues at once saves.
 */
static unsigned int default_jobs(enum jifl_print_mode mode)
{
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);

	if (mode == JIFL_PRINT_NONE || cpus <= 2)
		return 1;
	return cpus - 1 > 8 ? 8 : cpus - 1;
}

/* -j N: 1 to 1024 threads. */
static int parse_jobs(struct options *o, const char *arg)
{
	uint64_t v;

	if (jifl_number_whole(arg, 10, 1024, &v) || !v)
		return fail("--jobs: expected a number from 1 to 1024, got '%s'", arg);
	o->jobs = v;
	return 0;
}

static int parse(int argc, char **argv, struct options *o)
{
	enum {
		OPT_INSN = 256, OPT_BRANCHES, OPT_CALLS, OPT_STATS, OPT_PT, OPT_ELF, OPT_RAW,
		OPT_PROGRESS, OPT_NO_PROGRESS, OPT_DECODER, OPT_VERSION, OPT_PID, OPT_TID,
		OPT_TIME, OPT_BUILDID_DIR, OPT_CPU, OPT_FILTER,
	};
#define FILTER_OPTS(n)									\
	{ "filter:addr" #n "_cfg", required_argument, NULL, OPT_FILTER + 3 * (n) },	\
	{ "filter:addr" #n "_a", required_argument, NULL, OPT_FILTER + 3 * (n) + 1 },	\
	{ "filter:addr" #n "_b", required_argument, NULL, OPT_FILTER + 3 * (n) + 2 }
	static const struct option longopts[] = {
		{ "input", required_argument, NULL, 'i' },
		{ "flowjit", required_argument, NULL, 'f' },
		{ "buildid-dir", required_argument, NULL, OPT_BUILDID_DIR },
		{ "insn", no_argument, NULL, OPT_INSN },
		{ "branches", no_argument, NULL, OPT_BRANCHES },
		{ "calls", no_argument, NULL, OPT_CALLS },
		{ "stats", no_argument, NULL, OPT_STATS },
		{ "pt", required_argument, NULL, OPT_PT },
		{ "elf", required_argument, NULL, OPT_ELF },
		{ "raw", required_argument, NULL, OPT_RAW },
		{ "cpu", required_argument, NULL, OPT_CPU },
		FILTER_OPTS(0), FILTER_OPTS(1), FILTER_OPTS(2), FILTER_OPTS(3),
		{ "progress", no_argument, NULL, OPT_PROGRESS },
		{ "no-progress", no_argument, NULL, OPT_NO_PROGRESS },
		{ "decoder", required_argument, NULL, OPT_DECODER },
		{ "jobs", required_argument, NULL, 'j' },
		{ "pid", required_argument, NULL, OPT_PID },
		{ "tid", required_argument, NULL, OPT_TID },
		{ "time", required_argument, NULL, OPT_TIME },
		{ "fields", required_argument, NULL, 'F' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, OPT_VERSION },
		{ NULL, 0, NULL, 0 },
	};
	int c, err;

	pt_config_init(&o->proc);
	while ((c = getopt_long(argc, argv, "i:f:F:j:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'i': o->input = optarg; break;
		case 'f': o->flowjit = optarg; break;
		case OPT_BUILDID_DIR: o->buildid_dir = optarg; break;
		case OPT_INSN: o->mode = JIFL_PRINT_INSN; break;
		case OPT_BRANCHES: o->mode = JIFL_PRINT_BRANCHES; break;
		case OPT_CALLS: o->mode = JIFL_PRINT_CALLS; break;
		case OPT_STATS: o->mode = JIFL_PRINT_NONE; o->stats = 1; break;
		case OPT_PT: o->pt = optarg; break;
		case OPT_PROGRESS: o->progress = PROGRESS_ON; break;
		case OPT_NO_PROGRESS: o->progress = PROGRESS_OFF; break;
		case OPT_DECODER: o->decoder = optarg; break;
		case 'j':
			if (parse_jobs(o, optarg))
				return 2;
			break;
		case OPT_ELF:
		case OPT_RAW:
			if (parse_file(o, optarg, c == OPT_ELF))
				return 2;
			break;
		case OPT_PID:
		case OPT_TID:
			err = parse_ids(c == OPT_PID ? &o->filter.pids : &o->filter.tids,
					c == OPT_PID ? "--pid" : "--tid",
					c == OPT_PID ? "PID" : "TID", optarg);
			if (err)
				return err;
			break;
		case OPT_TIME:
			if (parse_time(&o->filter, optarg))
				return 2;
			break;
		case 'F':
			if (parse_fields(o, optarg))
				return 2;
			break;
		case OPT_CPU:
			if (parse_cpu(o, optarg))
				return 2;
			break;
		case OPT_FILTER ... OPT_FILTER + 3 * JIFL_FILTER_RANGES - 1:
			if (parse_filter(o, c - OPT_FILTER, optarg))
				return 2;
			break;
		case 'h':
			fputs(usage, stdout);
			exit(0);
		case OPT_VERSION:
			printf("jifl-decode %s\n", jifl_version());
			exit(0);
		default:
			fputs(usage, stderr);
			return 2;
		}
	}
	if (optind < argc)
		return fail("unexpected argument '%s'", argv[optind]) + 1;
	if (!o->input == !o->pt)
		return fail("%s", "give either -i perf.data or --pt FILE") + 1;
	if (o->pt && o->flowjit)
		return fail("%s", "--flowjit needs -i perf.data") + 1;
	if (!o->pt && o->nr_files)
		return fail("%s", "--elf and --raw are for --pt") + 1;
	if (!o->pt && o->have_proc)
		return fail("%s", "--cpu and --filter are for --pt (perf.data names the processor)")
			+ 1;
	if (o->decoder && strcmp(o->decoder, "insn") && strcmp(o->decoder, "block"))
		return fail("--decoder: expected insn or block, got '%s'", o->decoder) + 1;
	if (o->have_fields && o->mode != JIFL_PRINT_INSN)
		return fail("%s", "-F: the fields are those of --insn") + 1;
	/* As ptxed does, decode on without errata; nothing is lost by it. */
	if (o->cpu && jifl_ptconfig_set_cpu(&o->proc, &o->proc.cpu))
		jifl_warn("jifl-decode", "--cpu %s: libipt knows no errata of processor "
			  "%u/%u/%u; decoding without", o->cpu, o->proc.cpu.family,
			o->proc.cpu.model, o->proc.cpu.stepping);
	return 0;
}

static void progress(void *arg, uint64_t done)
{
	jifl_progress_update(arg, done);
}

/* The block decoder is faster (Documentation/decode.rst, "Decoders"). */
static enum jifl_decoder_kind decoder_kind(const struct options *o)
{
	if (o->decoder && strcmp(o->decoder, "block"))
		return JIFL_DECODER_INSN;
	return JIFL_DECODER_BLOCK;
}

/*
 * By default the progress shows on a terminal, unless the listing goes
 * to that terminal too (it would tear the listing's lines).
 */
static int want_progress(const struct options *o)
{
	if (o->progress != PROGRESS_AUTO)
		return o->progress == PROGRESS_ON;
	return isatty(STDERR_FILENO) && (o->mode == JIFL_PRINT_NONE || !isatty(STDOUT_FILENO));
}

static int open_session(const struct options *o, struct jifl_session **s)
{
	const struct mem_file *m;
	char msg[1024];
	int i, err;

	if (o->input)
		err = jifl_session_open(s, o->input, o->flowjit, o->buildid_dir, msg,
					sizeof(msg));
	else
		err = jifl_session_open_raw(s, o->pt, &o->proc, msg, sizeof(msg));
	for (i = 0; !err && i < o->nr_files; i++) {
		m = &o->files[i];
		err = m->elf ? jifl_session_add_elf(*s, m->path, m->base, msg, sizeof(msg)) :
		      jifl_session_add_raw(*s, m->path, m->from, m->to, m->base, msg,
					   sizeof(msg));
	}
	if (err) {
		if (!o->input && *s)
			jifl_session_close(*s);
		return fail("%s", msg);
	}
	return 0;
}

/* At the end, as perf does: what the recording lost. Returns how many kinds. */
static size_t warn_losses(const struct jifl_session *s)
{
	char msg[JIFL_LOSSES_MAX][JIFL_LOSS_MSG];
	const struct jifl_perf_info *info = jifl_session_perf_info(s);
	size_t n = info ? jifl_losses_describe(info, msg) : 0, i;

	for (i = 0; i < n; i++)
		jifl_warn("jifl-decode", "%s", msg[i]);
	return n;
}

int main(int argc, char **argv)
{
	struct jifl_decode_config cfg = { 0 };
	struct options o = { .mode = JIFL_PRINT_INSN, .filter = JIFL_FILTER_ALL,
			     .fields = jifl_fields_default };
	struct jifl_progress *pg = NULL;
	struct jifl_session *s = NULL;
	struct jifl_printer *p;
	size_t i;
	int ret;

	ret = parse(argc, argv, &o);
	if (!ret && open_session(&o, &s))
		ret = 1;
	if (ret) {
		jifl_filter_free(&o.filter);
		return ret;
	}
	for (i = 0; i < jifl_session_nr_warnings(s); i++)
		jifl_warn("jifl-decode", "%s", jifl_session_warning(s, i));
	/* Millions of lines: a large buffer, unless a terminal reads them. */
	if (!isatty(STDOUT_FILENO))
		setvbuf(stdout, NULL, _IOFBF, 1 << 20);
	if (jifl_printer_new(&p, stdout, o.mode)) {
		jifl_session_close(s);
		jifl_filter_free(&o.filter);
		return fail("%s", "out of memory");
	}
	jifl_printer_set_filter(p, &o.filter);
	jifl_printer_set_fields(p, &o.fields, s);
	cfg.ops = jifl_printer_ops(p);
	cfg.ctx = p;
	cfg.kind = decoder_kind(&o);
	cfg.jobs = o.jobs ? o.jobs : default_jobs(o.mode);
	if (want_progress(&o) && !jifl_progress_new(&pg, stderr, jifl_session_trace_size(s))) {
		cfg.progress = progress;
		cfg.progress_arg = pg;
	}
	ret = jifl_session_decode(s, &cfg);
	jifl_progress_end(pg);
	if (ret)
		jifl_perror("jifl-decode", ret, "decoding '%s'", o.input ? o.input : o.pt);
	if (o.stats)
		jifl_printer_stats(p, stdout);
	if (!ret && !jifl_printer_insns(p) && jifl_filter_active(&o.filter))
		ret = fail("%s", "no instruction of the trace passed --pid, --tid and --time");
	else if (!ret && !jifl_printer_insns(p))
		ret = fail("%s", "no instruction could be decoded from the trace");
	else if (!ret && jifl_printer_errors(p))
		ret = fprintf(stderr, "jifl-decode: %" PRIu64 " decode errors\n",
			      jifl_printer_errors(p)) < 0 || 1;
	ret = warn_losses(s) || ret || jifl_session_nr_warnings(s) ? 1 : 0;
	jifl_printer_free(p);
	jifl_session_close(s);
	jifl_filter_free(&o.filter);
	if (fflush(stdout))
		return fail("%s", "cannot write the output");
	return ret;
}
