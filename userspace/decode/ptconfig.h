/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The processor a trace was recorded on, as libipt's struct pt_config
 * holds it: family, model and stepping with their errata
 * (pt_cpu_errata()), the MTC and nominal frequencies and CPUID leaf 0x15
 * that libipt's timing needs, and the address filter the trace was
 * recorded with. It comes from perf.data, or in raw mode from options
 * that are ptxed's (--cpu, --filter:addrN_cfg/_a/_b).
 */
#ifndef JIFL_DECODE_PTCONFIG_H
#define JIFL_DECODE_PTCONFIG_H

#include <intel-pt.h>

#include "perf/perf_reader.h"

/* The address filter's fields, as ptxed's options name them. */
enum jifl_filter_field { JIFL_FILTER_CFG, JIFL_FILTER_A, JIFL_FILTER_B };

#define JIFL_FILTER_RANGES	4	/* ADDR0 to ADDR3 */

/*
 * ptxed's --cpu: "f/m[/s]" (numbers in C syntax, stepping 0 if left
 * out), "auto" (this machine, none if it is not Intel's) or "none".
 * Returns 0 or -jifl_err_invalid.
 */
int jifl_ptconfig_parse_cpu(struct pt_cpu *cpu, const char *arg);

/*
 * Set @cfg's processor and its errata. Returns 0, or -jifl_err_nosupp
 * when libipt knows no errata of @cpu (a model newer than libipt, or not
 * a processor): then @cfg has none, as with no processor at all.
 */
int jifl_ptconfig_set_cpu(struct pt_config *cfg, const struct pt_cpu *cpu);

/*
 * ptxed's --filter:addr@n_cfg (a 4-bit IA32_RTIT_CTL.ADDRn_CFG), _a and
 * _b (IA32_RTIT_ADDRn_A/B) with the value @arg in C syntax. Returns 0 or
 * -jifl_err_invalid.
 */
int jifl_ptconfig_set_filter(struct pt_config *cfg, unsigned int n,
			     enum jifl_filter_field field, const char *arg);

/*
 * @cfg from perf.data: the processor of its CPUID feature (if Intel's)
 * and the timing fields of its AUXTRACE_INFO; what the file lacks stays
 * unset (pt_config_init()). Returns what jifl_ptconfig_set_cpu() does,
 * or 0 without a processor.
 */
int jifl_ptconfig_from_perf(struct pt_config *cfg, const struct jifl_perf_info *info);

#endif /* JIFL_DECODE_PTCONFIG_H */
