// SPDX-License-Identifier: GPL-2.0
/*
 * Instruction cache of a traced process. Reading the code costs a system
 * call; single-stepping already costs three, so read-only file text is
 * decoded once. Writable or anonymous code (JIT) is read again each time.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/errcode.h"
#include "insn.h"

#define CACHE_BITS	16
#define CACHE_SIZE	(1u << CACHE_BITS)
#define MAX_INSN_LEN	15

struct jifl_insn_cache {
	int mem_fd;
	struct jifl_insn slot[CACHE_SIZE];	/* direct-mapped by IP */
};

int jifl_insn_cache_alloc(struct jifl_insn_cache **pc, int pid)
{
	struct jifl_insn_cache *c;
	char path[64];
	int err;

	c = calloc(1, sizeof(*c));
	if (!c)
		return -jifl_err_nomem;
	snprintf(path, sizeof(path), "/proc/%d/mem", pid);
	c->mem_fd = open(path, O_RDONLY | O_CLOEXEC);
	if (c->mem_fd < 0) {
		err = jifl_err_errno(errno);
		free(c);
		return err;
	}
	*pc = c;
	return 0;
}

void jifl_insn_cache_free(struct jifl_insn_cache *c)
{
	if (!c)
		return;
	close(c->mem_fd);
	free(c);
}

void jifl_insn_cache_clear(struct jifl_insn_cache *c)
{
	memset(c->slot, 0, sizeof(c->slot));
}

static unsigned int cache_hash(uint64_t ip)
{
	return (unsigned int)((ip * 0x9e3779b97f4a7c15ULL) >> (64 - CACHE_BITS));
}

/* Read up to 15 bytes at @ip, fewer where the mapping ends first. */
static ssize_t cache_read(struct jifl_insn_cache *c, uint64_t ip, uint8_t *buf)
{
	size_t n = MAX_INSN_LEN;
	ssize_t r;

	for (;;) {
		r = pread(c->mem_fd, buf, n, ip);
		if (r > 0)
			return r;
		/* The next page may be unmapped: retry up to the page end. */
		if (n == MAX_INSN_LEN && ((ip + n) & ~4095ULL) != (ip & ~4095ULL)) {
			n = 4096 - (ip & 4095);
			continue;
		}
		return -1;
	}
}

int jifl_insn_cache_get(struct jifl_insn_cache *c, uint64_t ip, bool cacheable,
			struct jifl_insn *insn)
{
	struct jifl_insn *slot = &c->slot[cache_hash(ip)];
	uint8_t buf[MAX_INSN_LEN];
	ssize_t n;
	int err;

	if (cacheable && slot->valid && slot->ip == ip) {
		*insn = *slot;
		return 0;
	}
	n = cache_read(c, ip, buf);
	if (n < 0)
		return jifl_err_errno(errno);
	err = jifl_insn_decode(buf, n, ip, insn);
	if (err)
		return err;
	if (cacheable)
		*slot = *insn;
	return 0;
}
