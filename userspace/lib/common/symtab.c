// SPDX-License-Identifier: GPL-2.0
#include <fcntl.h>
#include <gelf.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "array.h"
#include "errcode.h"
#include "symtab.h"

struct sym {
	uint64_t start, size;
	uint64_t limit;		/* end of the mapping it is in */
	char *name;
};

struct jifl_symtab {
	struct sym *v;
	size_t nr, cap;
	int sorted;
	/* The last symbol found, for every ip in [hit_lo, hit_hi): listings ask in runs. */
	const struct sym *hit;
	uint64_t hit_lo, hit_hi;
	uint64_t stamp;		/* jifl_symtab_stamp() */
};

/* Stamps are never reused, by any table: a table freed leaves none behind. */
static uint64_t new_stamp(void)
{
	static uint64_t last;

	return __atomic_add_fetch(&last, 1, __ATOMIC_RELAXED);
}

int jifl_symtab_new(struct jifl_symtab **stp)
{
	*stp = calloc(1, sizeof(**stp));
	if (!*stp)
		return -jifl_err_nomem;
	(*stp)->stamp = new_stamp();
	return 0;
}

uint64_t jifl_symtab_stamp(const struct jifl_symtab *st)
{
	return st->stamp;
}

void jifl_symtab_free(struct jifl_symtab *st)
{
	if (!st)
		return;
	while (st->nr)
		free(st->v[--st->nr].name);
	free(st->v);
	free(st);
}

static int push(struct jifl_symtab *st, uint64_t start, uint64_t size,
		uint64_t limit, const char *name)
{
	int err = jifl_array_room(st->v, st->nr, st->cap);

	if (err)
		return err;
	st->v[st->nr].name = strdup(name);
	if (!st->v[st->nr].name)
		return -jifl_err_nomem;
	st->v[st->nr].start = start;
	st->v[st->nr].size = size;
	st->v[st->nr].limit = limit;
	st->nr++;
	st->sorted = 0;
	st->hit = NULL;
	st->stamp = new_stamp();
	return 0;
}

/* Run-time address minus link address for the segment holding @pgoff. */
static int load_bias(Elf *elf, uint64_t addr, uint64_t pgoff, uint64_t *bias)
{
	size_t n, i;
	GElf_Phdr ph;

	if (elf_getphdrnum(elf, &n))
		return -jifl_err_format;
	for (i = 0; i < n; i++) {
		if (!gelf_getphdr(elf, i, &ph) || ph.p_type != PT_LOAD)
			continue;
		if (pgoff >= (ph.p_offset & ~0xfffull) && pgoff < ph.p_offset + ph.p_filesz) {
			*bias = addr - (ph.p_vaddr + pgoff - ph.p_offset);
			return 0;
		}
	}
	return -jifl_err_format;
}

/* Add the functions of section @scn that fall in [addr, addr + len). */
static int add_section(struct jifl_symtab *st, Elf *elf, Elf_Scn *scn,
		       const GElf_Shdr *sh, uint64_t bias, uint64_t addr, uint64_t len)
{
	Elf_Data *data = elf_getdata(scn, NULL);
	size_t i, n;
	GElf_Sym sym;
	const char *name;
	uint64_t start;
	int added = 0, err;

	if (!data || !sh->sh_entsize)
		return 0;
	n = sh->sh_size / sh->sh_entsize;
	for (i = 0; i < n; i++) {
		if (!gelf_getsym(data, i, &sym) || GELF_ST_TYPE(sym.st_info) != STT_FUNC ||
		    sym.st_shndx == SHN_UNDEF)
			continue;
		start = sym.st_value + bias;
		if (start < addr || start >= addr + len)
			continue;
		name = elf_strptr(elf, sh->sh_link, sym.st_name);
		if (!name || !*name)
			continue;
		err = push(st, start, sym.st_size, addr + len, name);
		if (err)
			return err;
		added++;
	}
	return added;
}

int jifl_symtab_add_elf(struct jifl_symtab *st, const char *path, uint64_t addr,
			uint64_t len, uint64_t pgoff)
{
	Elf_Scn *scn = NULL, *symtab = NULL, *dynsym = NULL;
	GElf_Shdr sh, chosen;
	uint64_t bias;
	Elf *elf;
	int fd, ret;

	if (elf_version(EV_CURRENT) == EV_NONE)
		return -jifl_err_internal;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return jifl_err_errno(errno);
	elf = elf_begin(fd, ELF_C_READ, NULL);
	if (!elf || elf_kind(elf) != ELF_K_ELF || gelf_getclass(elf) != ELFCLASS64) {
		ret = -jifl_err_format;
		goto out;
	}
	ret = load_bias(elf, addr, pgoff, &bias);
	if (ret)
		goto out;
	while ((scn = elf_nextscn(elf, scn))) {
		if (!gelf_getshdr(scn, &sh))
			continue;
		if (sh.sh_type == SHT_SYMTAB)
			symtab = scn;
		else if (sh.sh_type == SHT_DYNSYM)
			dynsym = scn;
	}
	scn = symtab ? symtab : dynsym;
	ret = 0;
	if (scn && gelf_getshdr(scn, &chosen))
		ret = add_section(st, elf, scn, &chosen, bias, addr, len);
out:
	if (elf)
		elf_end(elf);
	close(fd);
	return ret;
}

static int sym_cmp(const void *a, const void *b)
{
	const struct sym *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	/* Sized symbols first, so that they win over aliases without a size. */
	return (x->size < y->size) - (x->size > y->size);
}

const char *jifl_symtab_lookup(struct jifl_symtab *st, uint64_t ip, uint64_t *offset)
{
	size_t lo = 0, hi = st->nr, mid;
	const struct sym *s;
	uint64_t next;

	if (st->hit && ip >= st->hit_lo && ip < st->hit_hi) {
		*offset = ip - st->hit->start;
		return st->hit->name;
	}
	if (!st->sorted && st->nr) {
		qsort(st->v, st->nr, sizeof(*st->v), sym_cmp);
		st->sorted = 1;
	}
	while (lo < hi) {
		mid = (lo + hi) / 2;
		if (st->v[mid].start <= ip)
			lo = mid + 1;
		else
			hi = mid;
	}
	/* Up to the next symbol, the answer is the same. */
	next = lo < st->nr ? st->v[lo].start : UINT64_MAX;
	/* The first symbol at the greatest start <= ip. */
	while (lo > 1 && st->v[lo - 2].start == st->v[lo - 1].start)
		lo--;
	if (!lo)
		return NULL;
	s = &st->v[lo - 1];
	if (s->size ? ip - s->start >= s->size : ip >= s->limit)
		return NULL;
	st->hit = s;
	st->hit_lo = s->start;
	st->hit_hi = s->size ? s->start + s->size : s->limit;
	if (next < st->hit_hi)
		st->hit_hi = next;
	*offset = ip - s->start;
	return s->name;
}
