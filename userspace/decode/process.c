// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "errcode.h"
#include "process.h"

/* libipt reads code it has no section for here: JIT pages. */
static int read_jit(uint8_t *buf, size_t size, const struct pt_asid *asid,
		    uint64_t ip, void *ctx)
{
	struct jifl_process *p = ctx;
	const struct jifl_jit_version *v;
	uint32_t lost_mtc, lost_cyc;
	uint64_t tsc = 0;
	int n;

	(void)asid;
	if (!p->jit || !p->dec)
		return -pte_nomap;
	/* No TSC seen yet leaves @tsc zero: only a version from time 0 fits. */
	pt_insn_time(p->dec, &tsc, &lost_mtc, &lost_cyc);
	n = jifl_jit_image_read(p->jit, p->pid, ip, tsc, buf, size, &v);
	if (n < 0)
		return -pte_nomap;
	p->last_ip = ip;
	p->last_ver = v;
	return n;
}

int jifl_process_new(struct jifl_process **pp, uint32_t pid,
		     const struct jifl_jit_image *jit)
{
	struct jifl_process *p = calloc(1, sizeof(*p));
	int err;

	if (!p)
		return -jifl_err_nomem;
	p->pid = pid;
	p->jit = jit;
	p->image = pt_image_alloc(NULL);
	err = jifl_symtab_new(&p->syms);
	if (!p->image || err) {
		jifl_process_free(p);
		return -jifl_err_nomem;
	}
	pt_image_set_callback(p->image, read_jit, p);
	*pp = p;
	return 0;
}

void jifl_process_free(struct jifl_process *p)
{
	if (!p)
		return;
	pt_image_free(p->image);
	jifl_symtab_free(p->syms);
	free(p);
}

int jifl_process_add_file(struct jifl_process *p, struct pt_image_section_cache *isc,
			  const char *path, uint64_t offset, uint64_t size,
			  uint64_t addr)
{
	int fd, isid;

	/* Say why a file is missing with errno, not libipt's "bad file". */
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -jifl_err_io;
	close(fd);
	isid = pt_iscache_add_file(isc, path, offset, size, addr);
	if (isid < 0 || pt_image_add_cached(p->image, isc, isid, NULL) < 0)
		return -jifl_err_format;
	/* Symbols are a convenience: a file without them still decodes. */
	jifl_symtab_add_elf(p->syms, path, addr, size, offset);
	return 0;
}

int jifl_process_add_map(struct jifl_process *p, struct pt_image_section_cache *isc,
			 const struct jifl_perf_mmap2 *m)
{
	const char *f = m->filename;

	if (!(m->prot & PROT_EXEC) || f[0] != '/' || !strcmp(f, "//anon"))
		return 1;
	return jifl_process_add_file(p, isc, f, m->pgoff, m->len, m->addr);
}

const struct jifl_jit_version *jifl_process_jit_version(const struct jifl_process *p,
							 uint64_t ip, int isid)
{
	if (isid || !p->last_ver || p->last_ip != ip)
		return NULL;
	return p->last_ver;
}
