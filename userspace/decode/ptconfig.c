// SPDX-License-Identifier: GPL-2.0
#include <string.h>

#include "common/errcode.h"
#include "common/number.h"
#include "perf/perf_cpuid.h"
#include "ptconfig.h"

static void cpu_from_cpuid(struct pt_cpu *cpu, const struct jifl_perf_cpuid *id)
{
	memset(cpu, 0, sizeof(*cpu));
	/* libipt knows Intel's only; family and model are 16 and 8 bits there. */
	if (!jifl_perf_cpuid_is_intel(id) || id->family > UINT16_MAX || id->model > UINT8_MAX ||
	    id->stepping > UINT8_MAX)
		return;
	cpu->vendor = pcv_intel;
	cpu->family = id->family;
	cpu->model = id->model;
	cpu->stepping = id->stepping;
}

int jifl_ptconfig_parse_cpu(struct pt_cpu *cpu, const char *arg)
{
	uint64_t f, m, s = 0;
	struct jifl_perf_cpuid id;
	char *end;

	if (!strcmp(arg, "none")) {
		memset(cpu, 0, sizeof(*cpu));
		return 0;
	}
	if (!strcmp(arg, "auto")) {
		jifl_perf_cpuid_read(&id);
		cpu_from_cpuid(cpu, &id);
		return 0;
	}
	if (jifl_number_parse(arg, 0, UINT16_MAX, &end, &f) || *end != '/' ||
	    jifl_number_parse(end + 1, 0, UINT8_MAX, &end, &m) || (*end && *end != '/') ||
	    (*end && jifl_number_parse(end + 1, 0, UINT8_MAX, &end, &s)) || *end)
		return -jifl_err_invalid;
	memset(cpu, 0, sizeof(*cpu));
	cpu->vendor = pcv_intel;
	cpu->family = f;
	cpu->model = m;
	cpu->stepping = s;
	return 0;
}

int jifl_ptconfig_set_cpu(struct pt_config *cfg, const struct pt_cpu *cpu)
{
	cfg->cpu = *cpu;
	memset(&cfg->errata, 0, sizeof(cfg->errata));
	if (cpu->vendor == pcv_unknown)
		return 0;
	/* libipt clears the errata when it does not know the processor. */
	return pt_cpu_errata(&cfg->errata, cpu) < 0 ? -jifl_err_nosupp : 0;
}

int jifl_ptconfig_set_filter(struct pt_config *cfg, unsigned int n,
			     enum jifl_filter_field field, const char *arg)
{
	struct pt_conf_addr_filter *f = &cfg->addr_filter;
	uint64_t *ab[JIFL_FILTER_RANGES][2] = {
		{ &f->addr0_a, &f->addr0_b }, { &f->addr1_a, &f->addr1_b },
		{ &f->addr2_a, &f->addr2_b }, { &f->addr3_a, &f->addr3_b },
	};
	uint64_t v;
	char *end;

	if (n >= JIFL_FILTER_RANGES ||
	    jifl_number_parse(arg, 0, field == JIFL_FILTER_CFG ? 0xf : UINT64_MAX, &end, &v) ||
	    *end)
		return -jifl_err_invalid;
	if (field != JIFL_FILTER_CFG)
		*ab[n][field == JIFL_FILTER_B] = v;
	else if (n == 0)
		f->config.ctl.addr0_cfg = v;
	else if (n == 1)
		f->config.ctl.addr1_cfg = v;
	else if (n == 2)
		f->config.ctl.addr2_cfg = v;
	else
		f->config.ctl.addr3_cfg = v;
	return 0;
}

int jifl_ptconfig_from_perf(struct pt_config *cfg, const struct jifl_perf_info *info)
{
	struct jifl_perf_cpuid id;
	struct pt_cpu cpu;

	pt_config_init(cfg);
	/* With MTC on, IA32_RTIT_CTL.MTCFreq is attr.config's MTC period. */
	if (info->mtc_freq_bits && (info->pt_config & info->mtc_bit))
		cfg->mtc_freq = (info->pt_config & info->mtc_freq_bits) >>
				__builtin_ctzll(info->mtc_freq_bits);
	cfg->nom_freq = info->max_nonturbo_ratio <= UINT8_MAX ? info->max_nonturbo_ratio : 0;
	cfg->cpuid_0x15_eax = info->tsc_ctc_d;
	cfg->cpuid_0x15_ebx = info->tsc_ctc_n;
	if (!info->cpuid || jifl_perf_cpuid_parse(&id, info->cpuid))
		return 0;
	cpu_from_cpuid(&cpu, &id);
	return jifl_ptconfig_set_cpu(cfg, &cpu);
}
