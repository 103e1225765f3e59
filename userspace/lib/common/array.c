// SPDX-License-Identifier: GPL-2.0
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "array.h"
#include "errcode.h"

int jifl_array_grow(void *pv, size_t *cap, size_t need, size_t size)
{
	size_t n = *cap ? *cap : 8;
	void *v;

	if (need <= *cap)
		return 0;
	if (need > SIZE_MAX / 2 / size)
		return -jifl_err_nomem;
	while (n < need)
		n *= 2;
	/* The caller's pointer is of its own type: copied, not cast. */
	memcpy(&v, pv, sizeof(v));
	v = realloc(v, n * size);
	if (!v)
		return -jifl_err_nomem;
	memcpy(pv, &v, sizeof(v));
	*cap = n;
	return 0;
}
