// SPDX-License-Identifier: GPL-2.0
/*
 * jifl-swtrace: record an Intel PT trace of a program in software.
 */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

#include "perf/buildid_cache.h"
#include "common/errcode.h"
#include "common/number.h"
#include "recorder.h"
#include "tracer.h"
#include "common/version.h"

#define PROG "jifl-swtrace"

static void usage(FILE *f)
{
	fprintf(f,
		"usage: " PROG " [options] -- COMMAND [ARGS...]\n"
		"       " PROG " [options] -p PID\n"
		"\n"
		"Single-step COMMAND (or the running process PID, until SIGINT) and\n"
		"record what it executes as a perf.data file that\n"
		"\"perf record -e intel_pt//u\" would have written.\n"
		"\n"
		"  -o, --output FILE      perf.data to write (default: perf.data)\n"
		"  -t, --truth FILE       also write every executed user IP to FILE\n"
		"  -p, --pid PID          attach to a running process; detach on SIGINT\n"
		"  -d, --duration SECS    -p: detach after SECS seconds (as perf record\n"
		"                         -p PID -- sleep SECS), fractions allowed\n"
		"  -m, --max-insns N      -p: detach once N instructions are recorded\n"
		"      --psb-period N     bytes of packets between PSB+ (default: 4096)\n"
		"      --tsc-every N      TSC ticks after which a TSC packet is due\n"
		"                         (default: 0, one before every packet)\n"
		"      --pmu-type N       intel_pt PMU type to record (default: this\n"
		"                         system's, else 8)\n"
		"      --ret-compression  returns to the matching call site as TNT bits\n"
		"                         (default: noretcomp, a TIP for every return)\n"
		"      --no-pin           do not keep COMMAND on the recorder's CPU\n"
		"      --per-cpu          record per CPU, as perf record does by default:\n"
		"                         threads run on virtual CPUs, one trace per CPU,\n"
		"                         context-switch records (default: per thread)\n"
		"      --cpus N           virtual CPUs of --per-cpu (default: this system's)\n"
		"      --timeslice N      instructions a thread runs before it yields its\n"
		"                         CPU to a waiting one (default: 10000)\n"
		"      --switches KIND    the switch records of --per-cpu: cpu-wide\n"
		"                         (PERF_RECORD_SWITCH_CPU_WIDE, default) or task\n"
		"                         (PERF_RECORD_SWITCH)\n"
		"      --buildid-dir DIR  perf's build-id cache, where the vDSO is kept\n"
		"                         (default: $PERF_BUILDID_DIR, else ~/.debug)\n"
		"  -N, --no-buildid-cache do not keep the vDSO in the build-id cache\n"
		"  -q, --quiet            no summary on stderr\n"
		"  -h, --help             this text\n"
		"      --version          the version\n");
}

static int parse_u64(const char *opt, const char *s, uint64_t *v)
{
	if (jifl_number_whole(s, 0, UINT64_MAX, v)) {
		fprintf(stderr, PROG ": %s: not a number: '%s'\n", opt, s);
		return -1;
	}
	return 0;
}

static void on_stop_signal(int sig)
{
	(void)sig;
	jifl_tracer_interrupt();
}

/*
 * SIGINT, SIGTERM, SIGHUP end the program, not the recorder: the trace
 * is finished. A handler (unlike SIG_IGN) does not pass on to the program.
 */
static void catch_stop_signals(void)
{
	static const int sigs[] = { SIGINT, SIGTERM, SIGHUP, SIGALRM };
	struct sigaction sa;
	size_t i;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_stop_signal;
	for (i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		sigaction(sigs[i], &sa, NULL);
}

static uint32_t default_pmu_type(void)
{
	FILE *f = fopen("/sys/bus/event_source/devices/intel_pt/type", "re");
	unsigned int type = 8;

	if (f) {
		if (fscanf(f, "%u", &type) != 1)
			type = 8;
		fclose(f);
	}
	return type;
}

/* perf records on every online CPU. */
static uint32_t default_cpus(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);

	return n < 1 ? 1 : n > JIFL_RECORDER_MAX_CPUS ? JIFL_RECORDER_MAX_CPUS : n;
}

/* Exit status like a shell's: the program's own, or 128 + its signal. */
static int report(const struct jifl_tracer_result *res,
		  const struct jifl_recorder *r, char *const argv[], bool quiet)
{
	int st = res->exit_status;

	switch (res->error) {
	case JIFL_TRACER_OK:
		break;
	case JIFL_TRACER_EXEC:
		if (res->exec_errno)
			jifl_perror(PROG, jifl_err_errno(res->exec_errno), "cannot run '%s'", argv[0]);
		else
			fprintf(stderr, PROG ": cannot run '%s': it stopped or ended before its start\n",
				argv[0]);
		return 127;
	case JIFL_TRACER_THREADS:
		fprintf(stderr, PROG ": '%s': exec in a multi-threaded program is not supported (trace kept up to the exec)\n",
			argv[0]);
		return 1;
	case JIFL_TRACER_SYSTEM:
		jifl_perror(PROG, res->err, "tracing '%s'", argv[0]);
		return 1;
	case JIFL_TRACER_RECORD:
		jifl_perror(PROG, res->err, "recording '%s'", argv[0]);
		return 1;
	}
	if (!quiet)
		fprintf(stderr, PROG ": %llu instructions in %.3f s (%.0f instructions/s), %llu steps, %llu faults/signals%s, %llu bytes of packets\n",
			(unsigned long long)r->insns, res->seconds,
			res->seconds > 0 ? r->insns / res->seconds : 0.0,
			(unsigned long long)res->steps,
			(unsigned long long)r->leaves, r->opts.nr_cpus ? "/preemptions" : "",
			(unsigned long long)r->bytes);
	if (!quiet && r->opts.nr_cpus)
		fprintf(stderr, PROG ": %u CPUs, %llu context switches between threads\n",
			r->opts.nr_cpus, (unsigned long long)r->switches);
	if (r->vdso_err)
		jifl_warn(PROG, "the vDSO is not in the build-id cache '%s': %s; perf script and jifl-decode cannot decode its code",
			  r->opts.buildid_dir, jifl_strerror(r->vdso_err));
	if (res->lost_traps && !quiet)
		fprintf(stderr, PROG ": %llu steps ran more than one instruction (the debug trap was lost, as some hypervisors do); the instructions they ran are recorded\n",
			(unsigned long long)res->lost_traps);
	if (res->faults_missed && !quiet)
		jifl_warn(PROG, "no page-fault counter (perf_event_open): faults are not in the trace");
	if (WIFSIGNALED(st)) {
		fprintf(stderr, PROG ": '%s' killed by signal %d (%s); trace kept up to there\n",
			argv[0], WTERMSIG(st), strsignal(WTERMSIG(st)));
		return 128 + WTERMSIG(st);
	}
	return WEXITSTATUS(st);
}

int main(int argc, char *argv[])
{
	static const struct option longopts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "truth", required_argument, NULL, 't' },
		{ "pid", required_argument, NULL, 'p' },
		{ "duration", required_argument, NULL, 'd' },
		{ "max-insns", required_argument, NULL, 'm' },
		{ "psb-period", required_argument, NULL, 'P' },
		{ "tsc-every", required_argument, NULL, 'T' },
		{ "pmu-type", required_argument, NULL, 'M' },
		{ "no-pin", no_argument, NULL, 'n' + 256 },
		{ "per-cpu", no_argument, NULL, 'c' + 256 },
		{ "cpus", required_argument, NULL, 'C' + 256 },
		{ "timeslice", required_argument, NULL, 's' + 256 },
		{ "switches", required_argument, NULL, 'S' + 256 },
		{ "ret-compression", no_argument, NULL, 'R' },
		{ "buildid-dir", required_argument, NULL, 'B' },
		{ "no-buildid-cache", no_argument, NULL, 'N' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	struct jifl_recorder_opts opts = {
		.output = "perf.data",
		.psb_period = 4096,
		.pmu_type = default_pmu_type(),
	};
	struct jifl_tracer_result res;
	struct jifl_recorder r;
	bool quiet = false, pin = true, cache = true, per_cpu = false;
	uint64_t nr_cpus = 0, timeslice = 10000, max_insns = 0;
	double duration = 0;
	char *end;
	const char *buildid_dir = NULL;
	char cache_dir[4096];
	pid_t pid = 0, child = 0;
	char pid_name[16], *pid_argv[2] = { NULL, NULL };
	uint64_t v;
	int c, err;

	while ((c = getopt_long(argc, argv, "+o:t:p:d:m:qhN", longopts, NULL)) != -1) {
		switch (c) {
		case 'o':
			opts.output = optarg;
			break;
		case 't':
			opts.truth = optarg;
			break;
		case 'p':
			if (parse_u64("--pid", optarg, &v) || !v || v > INT32_MAX)
				return 2;
			pid = v;
			break;
		case 'd':
			errno = 0;
			duration = strtod(optarg, &end);
			if (errno || end == optarg || *end || !(duration > 0) ||
			    duration > 1e6) {
				fprintf(stderr, PROG ": --duration: seconds, more than 0, not '%s'\n",
					optarg);
				return 2;
			}
			break;
		case 'm':
			if (parse_u64("--max-insns", optarg, &max_insns))
				return 2;
			if (!max_insns) {
				fprintf(stderr, PROG ": --max-insns: at least 1 instruction\n");
				return 2;
			}
			break;
		case 'P':
			if (parse_u64("--psb-period", optarg, &opts.psb_period))
				return 2;
			break;
		case 'T':
			if (parse_u64("--tsc-every", optarg, &opts.tsc_every))
				return 2;
			break;
		case 'M':
			if (parse_u64("--pmu-type", optarg, &v) || v > UINT32_MAX)
				return 2;
			opts.pmu_type = v;
			break;
		case 'n' + 256:
			pin = false;
			break;
		case 'c' + 256:
			per_cpu = true;
			break;
		case 'C' + 256:
			if (parse_u64("--cpus", optarg, &nr_cpus))
				return 2;
			if (!nr_cpus || nr_cpus > JIFL_RECORDER_MAX_CPUS) {
				fprintf(stderr, PROG ": --cpus: from 1 to %d, not '%s'\n",
					JIFL_RECORDER_MAX_CPUS, optarg);
				return 2;
			}
			break;
		case 's' + 256:
			if (parse_u64("--timeslice", optarg, &timeslice))
				return 2;
			if (!timeslice) {
				fprintf(stderr, PROG ": --timeslice: at least 1 instruction\n");
				return 2;
			}
			break;
		case 'S' + 256:
			if (!strcmp(optarg, "cpu-wide")) {
				opts.sched_switch = JIFL_SCHED_SWITCH_CPU_WIDE;
			} else if (!strcmp(optarg, "task")) {
				opts.sched_switch = JIFL_SCHED_SWITCH_TASK;
			} else {
				fprintf(stderr, PROG ": --switches: cpu-wide or task, not '%s'\n",
					optarg);
				return 2;
			}
			break;
		case 'R':
			opts.ret_compression = true;
			break;
		case 'B':
			buildid_dir = optarg;
			break;
		case 'N':
			cache = false;
			break;
		case 'q':
			quiet = true;
			break;
		case 'h':
			usage(stdout);
			return 0;
		case 'V':
			printf(PROG " %s\n", jifl_version());
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (!pid && optind >= argc) {
		fprintf(stderr, PROG ": no command given\n");
		usage(stderr);
		return 2;
	}
	if (pid && optind < argc) {
		fprintf(stderr, PROG ": -p and a command exclude each other\n");
		return 2;
	}
	if (!pid && (duration > 0 || max_insns)) {
		fprintf(stderr, PROG ": --duration and --max-insns are for -p\n");
		return 2;
	}
	if (!per_cpu && (nr_cpus || opts.sched_switch)) {
		fprintf(stderr, PROG ": --cpus and --switches are for --per-cpu\n");
		return 2;
	}
	if (per_cpu && pid) {
		fprintf(stderr, PROG ": --per-cpu: not with -p (attached, it records per thread)\n");
		return 2;
	}
	if (per_cpu) {
		opts.nr_cpus = nr_cpus ? nr_cpus : default_cpus();
		if (!opts.sched_switch)
			opts.sched_switch = JIFL_SCHED_SWITCH_CPU_WIDE;
	}

	if (cache && jifl_buildid_cache_dir(buildid_dir, cache_dir, sizeof(cache_dir))) {
		fprintf(stderr, PROG ": --buildid-dir: the path is too long\n");
		return 2;
	}
	opts.buildid_dir = cache ? cache_dir : NULL;

	/* The program first: no file is touched if it cannot run. */
	if (!pid) {
		child = jifl_tracer_spawn(argv + optind, pin, &res);
		if (child < 0)
			return report(&res, NULL, argv + optind, quiet);
	}
	err = jifl_recorder_open(&r, &opts);
	if (err) {
		if (r.bad_path)
			jifl_perror(PROG, err, "cannot create '%s'", r.bad_path);
		else
			jifl_perror(PROG, err, "no TSC to perf time conversion");
		jifl_recorder_abort(&r);
		if (child)
			jifl_tracer_cancel(child);
		return 1;
	}
	catch_stop_signals();
	if (pid) {
		snprintf(pid_name, sizeof(pid_name), "%d", (int)pid);
		pid_argv[0] = pid_name;
		if (duration > 0) {
			struct itimerval it = { .it_value = {
				.tv_sec = (time_t)duration,
				.tv_usec = (suseconds_t)((duration - (time_t)duration) * 1e6),
			} };

			if (!it.it_value.tv_sec && !it.it_value.tv_usec)
				it.it_value.tv_usec = 1;
			setitimer(ITIMER_REAL, &it, NULL);
		}
		jifl_tracer_attach(&r, pid, max_insns, &res);
		return report(&res, &r, pid_argv, quiet);
	}
	jifl_tracer_run(&r, child, timeslice, &res);
	return report(&res, &r, argv + optind, quiet);
}
