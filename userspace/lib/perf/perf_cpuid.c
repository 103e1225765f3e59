// SPDX-License-Identifier: GPL-2.0
#include <cpuid.h>
#include <stdio.h>
#include <string.h>

#include "common/errcode.h"
#include "common/number.h"
#include "perf_cpuid.h"

void jifl_perf_cpuid_read(struct jifl_perf_cpuid *id)
{
	unsigned int a, b, c, d;

	__cpuid(0, a, b, c, d);
	memcpy(id->vendor, &b, 4);
	memcpy(id->vendor + 4, &d, 4);
	memcpy(id->vendor + 8, &c, 4);
	id->vendor[12] = '\0';
	__cpuid(1, a, b, c, d);
	id->family = (a >> 8) & 0xf;
	id->model = (a >> 4) & 0xf;
	if (id->family == 0xf)
		id->family += (a >> 20) & 0xff;
	if (id->family >= 0x6)
		id->model += ((a >> 16) & 0xf) << 4;
	id->stepping = a & 0xf;
}

int jifl_perf_cpuid_format(const struct jifl_perf_cpuid *id, char *buf, size_t len)
{
	return snprintf(buf, len, "%s,%u,%u,%u", id->vendor, id->family, id->model,
			id->stepping);
}

/* A decimal number up to 32 bits at *@s, then @sep; *@s moves past both. */
static int number(const char **s, char sep, uint32_t *v)
{
	uint64_t n;
	char *end;

	if (jifl_number_parse(*s, 10, UINT32_MAX, &end, &n) || *end != sep)
		return -jifl_err_format;
	*v = n;
	*s = end + (sep != '\0');
	return 0;
}

int jifl_perf_cpuid_parse(struct jifl_perf_cpuid *id, const char *s)
{
	const char *comma = strchr(s, ',');
	struct jifl_perf_cpuid v;

	if (!comma || comma == s || (size_t)(comma - s) >= sizeof(v.vendor))
		return -jifl_err_format;
	memcpy(v.vendor, s, comma - s);
	v.vendor[comma - s] = '\0';
	s = comma + 1;
	if (number(&s, ',', &v.family) || number(&s, ',', &v.model) ||
	    number(&s, '\0', &v.stepping))
		return -jifl_err_format;
	*id = v;
	return 0;
}

int jifl_perf_cpuid_is_intel(const struct jifl_perf_cpuid *id)
{
	return !strcmp(id->vendor, "GenuineIntel");
}
