// SPDX-License-Identifier: GPL-2.0
#include <string.h>

#include "common/errcode.h"
#include "fjfile.h"

static const char * const type_names[FLOWJIT_EV_MAX] = {
	[FLOWJIT_EV_EXEC] = "EXEC",
	[FLOWJIT_EV_WRITE] = "WRITE",
	[FLOWJIT_EV_MPROTECT] = "MPROTECT",
	[FLOWJIT_EV_MUNMAP] = "MUNMAP",
	[FLOWJIT_EV_MREMAP] = "MREMAP",
	[FLOWJIT_EV_TRACK] = "TRACK",
	[FLOWJIT_EV_UNTRACK] = "UNTRACK",
	[FLOWJIT_EV_FORK] = "FORK",
	[FLOWJIT_EV_EXECVE] = "EXECVE",
	[FLOWJIT_EV_LOST] = "LOST",
};

const char *jifl_fjfile_type_name(unsigned int type)
{
	if (type == JIFL_FJ_END)
		return "END";
	if (type < FLOWJIT_EV_MAX && type_names[type])
		return type_names[type];
	return "?";
}

int jifl_fjfile_check_record(const struct flowjit_event *ev)
{
	size_t want = sizeof(*ev);

	if (ev->type == 0 || (ev->type >= FLOWJIT_EV_MAX && ev->type != JIFL_FJ_END))
		return -jifl_err_format;
	if (ev->flags & FLOWJIT_EVF_PAYLOAD) {
		if (ev->type != FLOWJIT_EV_EXEC)
			return -jifl_err_format;
		want += FLOWJIT_PAGE_SIZE;
	}
	return ev->size == want ? 0 : -jifl_err_format;
}

/*
 * FNV-1a over 64-bit words: each step is a bijection of the running sum,
 * so any change of a single word changes the result.
 */
uint64_t jifl_fjfile_checksum(uint64_t sum, const void *buf, size_t len)
{
	const unsigned char *p = buf;
	uint64_t w;
	size_t i;

	for (i = 0; i + 8 <= len; i += 8) {
		memcpy(&w, p + i, 8);
		sum = (sum ^ w) * 0x100000001b3ull;
	}
	return sum;
}
