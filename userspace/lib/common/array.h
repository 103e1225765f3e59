/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Growing arrays: a pointer @v to room for @cap elements, @nr of them used.
 * The room doubles when it runs out, so appending costs O(1) on average.
 * @v starts NULL with @cap 0; free(@v) frees it.
 */
#ifndef JIFL_ARRAY_H
#define JIFL_ARRAY_H

#include <stddef.h>

/*
 * Make the array at *@pv (a pointer to any object pointer, room for *@cap
 * elements of @size bytes) hold at least @need elements. Returns 0 or
 * -jifl_err_nomem (*@pv and *@cap unchanged then).
 */
int jifl_array_grow(void *pv, size_t *cap, size_t need, size_t size);

/* Room for element @nr (one more) in the array @v: 0 or -jifl_err_nomem. */
#define jifl_array_room(v, nr, cap) \
	((nr) < (cap) ? 0 : jifl_array_grow(&(v), &(cap), (size_t)(nr) + 1, sizeof(*(v))))

#endif /* JIFL_ARRAY_H */
