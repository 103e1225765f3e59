/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The processor's identity as perf.data's CPUID header feature holds it
 * on x86: "vendor,family,model,stepping" in decimal ("GenuineIntel,6,142,10"),
 * family and model with their extended fields added in, as perf's
 * get_cpuid() computes them.
 */
#ifndef JIFL_PERF_CPUID_H
#define JIFL_PERF_CPUID_H

#include <stddef.h>
#include <stdint.h>

struct jifl_perf_cpuid {
	char vendor[13];		/* "GenuineIntel" */
	uint32_t family, model, stepping;
};

/* This machine's, from the CPUID instruction. */
void jifl_perf_cpuid_read(struct jifl_perf_cpuid *id);

/* "vendor,family,model,stepping"; returns what snprintf() returns. */
int jifl_perf_cpuid_format(const struct jifl_perf_cpuid *id, char *buf, size_t len);

/*
 * Parse perf's string; returns 0, or -jifl_err_format when it is not
 * "vendor,family,model,stepping" with decimal numbers (perf writes other
 * forms on other architectures).
 */
int jifl_perf_cpuid_parse(struct jifl_perf_cpuid *id, const char *s);

/* Whether @id is an Intel processor (the only kind with Intel PT). */
int jifl_perf_cpuid_is_intel(const struct jifl_perf_cpuid *id);

#endif /* JIFL_PERF_CPUID_H */
