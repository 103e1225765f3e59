// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/array.h"
#include "common/errcode.h"
#include "rawmem.h"

struct range {
	uint64_t lo, hi;	/* [lo, hi) */
	char *opt;		/* "--elf 'a.out'" */
};

struct jifl_rawmem {
	struct jifl_process *proc;
	struct pt_image_section_cache *isc;
	struct range *v;
	size_t nr, cap;
};

static int say(char *msg, size_t len, int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, len, fmt, ap);
	va_end(ap);
	return err;
}

int jifl_rawmem_new(struct jifl_rawmem **rmp, struct jifl_process *p,
		    struct pt_image_section_cache *isc)
{
	struct jifl_rawmem *rm = calloc(1, sizeof(*rm));

	if (!rm)
		return -jifl_err_nomem;
	rm->proc = p;
	rm->isc = isc;
	*rmp = rm;
	return 0;
}

void jifl_rawmem_free(struct jifl_rawmem *rm)
{
	if (!rm)
		return;
	while (rm->nr)
		free(rm->v[--rm->nr].opt);
	free(rm->v);
	free(rm);
}

/* Map @size bytes at file offset @offset of @path to @addr, if that is free. */
static int map(struct jifl_rawmem *rm, const char *opt, const char *path,
	       uint64_t offset, uint64_t size, uint64_t addr, char *msg, size_t len)
{
	struct range *r;
	size_t i;
	int err;

	if (addr + size < addr)
		return say(msg, len, -jifl_err_invalid,
			   "%s: '%s': 0x%" PRIx64 " bytes at 0x%" PRIx64
			   " go past the end of the address space", opt, path, size, addr);
	for (i = 0; i < rm->nr; i++) {
		r = &rm->v[i];
		if (addr < r->hi && r->lo < addr + size)
			return say(msg, len, -jifl_err_invalid,
				   "%s: '%s' at 0x%" PRIx64 "-0x%" PRIx64
				   " overlaps %s at 0x%" PRIx64 "-0x%" PRIx64,
				   opt, path, addr, addr + size, r->opt, r->lo, r->hi);
	}
	if (jifl_array_room(rm->v, rm->nr, rm->cap))
		return say(msg, len, -jifl_err_nomem, "%s", jifl_strerror(-jifl_err_nomem));
	r = &rm->v[rm->nr];
	if (asprintf(&r->opt, "%s '%s'", opt, path) < 0)
		return say(msg, len, -jifl_err_nomem, "%s", jifl_strerror(-jifl_err_nomem));
	err = jifl_process_add_file(rm->proc, rm->isc, path, offset, size, addr);
	if (err) {
		free(r->opt);
		return say(msg, len, err, "%s: '%s': %s", opt, path, jifl_strerror(err));
	}
	r->lo = addr;
	r->hi = addr + size;
	rm->nr++;
	return 0;
}

/*
 * As ptxed: with a @base, the segments move together so that the lowest
 * one starts there; *@shift is what is added to each one's address.
 */
static int elf_shift(Elf *elf, size_t n, uint64_t base, uint64_t *shift)
{
	uint64_t lowest = UINT64_MAX;
	GElf_Phdr ph;
	size_t i;

	for (i = 0; i < n; i++)
		if (gelf_getphdr(elf, i, &ph) && ph.p_type == PT_LOAD && ph.p_vaddr < lowest)
			lowest = ph.p_vaddr;
	if (lowest == UINT64_MAX)
		return -jifl_err_format;
	*shift = base ? base - lowest : 0;
	return 0;
}

int jifl_rawmem_add_elf(struct jifl_rawmem *rm, const char *path, uint64_t base,
			char *msg, size_t len)
{
	int fd, err = 0, added = 0;
	uint64_t shift;
	size_t n = 0, i;
	GElf_Phdr ph;
	Elf *elf;

	elf_version(EV_CURRENT);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		err = jifl_err_errno(errno);
		return say(msg, len, err, "--elf: cannot open '%s': %s", path, jifl_strerror(err));
	}
	elf = elf_begin(fd, ELF_C_READ, NULL);
	if (!elf || elf_kind(elf) != ELF_K_ELF || elf_getphdrnum(elf, &n) ||
	    elf_shift(elf, n, base, &shift))
		n = 0;
	/* Every loadable segment with bytes in the file, as ptxed loads them. */
	for (i = 0; !err && i < n; i++) {
		if (!gelf_getphdr(elf, i, &ph) || ph.p_type != PT_LOAD || !ph.p_filesz)
			continue;
		err = map(rm, "--elf", path, ph.p_offset, ph.p_filesz, ph.p_vaddr + shift,
			  msg, len);
		added++;
	}
	if (elf)
		elf_end(elf);
	close(fd);
	if (!err && !added)
		err = say(msg, len, -jifl_err_format,
			  "--elf: '%s': not an ELF file with loadable segments", path);
	return err;
}

int jifl_rawmem_add_raw(struct jifl_rawmem *rm, const char *path, uint64_t from,
			uint64_t to, uint64_t base, char *msg, size_t len)
{
	struct stat st;
	uint64_t size;
	int err;

	if (stat(path, &st)) {
		err = jifl_err_errno(errno);
		return say(msg, len, err, "--raw: cannot open '%s': %s", path, jifl_strerror(err));
	}
	if (!S_ISREG(st.st_mode) || !st.st_size)
		return say(msg, len, -jifl_err_format, "--raw: '%s': %s", path,
			   S_ISREG(st.st_mode) ? "the file is empty" : "not a regular file");
	size = st.st_size;
	if (from >= size || to > size)
		return say(msg, len, -jifl_err_invalid,
			   "--raw: '%s': bytes 0x%" PRIx64 "-0x%" PRIx64
			   " are not all in the file (0x%" PRIx64 " bytes)",
			   path, from, to ? to : size, size);
	return map(rm, "--raw", path, from, (to ? to : size) - from, base, msg, len);
}
