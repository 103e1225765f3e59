// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdlib.h>

#include "errcode.h"
#include "number.h"

int jifl_number_parse(const char *s, int base, uint64_t max, char **end, uint64_t *v)
{
	if (*s < '0' || *s > '9')
		return -jifl_err_invalid;
	errno = 0;
	*v = strtoull(s, end, base);
	return errno || *v > max ? -jifl_err_invalid : 0;
}

int jifl_number_whole(const char *s, int base, uint64_t max, uint64_t *v)
{
	char *end;
	int err = jifl_number_parse(s, base, max, &end, v);

	return err ? err : *end ? -jifl_err_invalid : 0;
}
