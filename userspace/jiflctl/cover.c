// SPDX-License-Identifier: GPL-2.0
/*
 * jiflctl cover: run a command with the kernel's cover tool collecting
 * for it (kcov's interface on /proc/jifl/cover), then print the kernel
 * functions its system calls ran, or with --raw the addresses as kcov
 * would (for addr2line -e vmlinux).
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include "common/array.h"
#include "ctl.h"
#include "common/errcode.h"
#include "jifl/jiflproc.h"

/* kcov's ioctls (include/uapi/linux/kcov.h) */
#define KCOV_INIT_TRACE		_IOR('c', 1, unsigned long)
#define KCOV_ENABLE		_IO('c', 100)
#define KCOV_TRACE_PC		0

#define COVER_FILE		"cover"
#define OFFSET_LINE		"# kaslr_offset "

struct ksym {
	uint64_t addr;
	char *name;
};

struct func {
	const char *name;
	unsigned long runs;	/* blocks run */
	unsigned long blocks;	/* distinct blocks */
};

static int ksym_cmp(const void *a, const void *b)
{
	const struct ksym *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/* The text symbols of /proc/kallsyms, sorted; the count, or -1. */
static long ksyms_load(struct ksym **symsp)
{
	struct ksym *syms = NULL;
	size_t n = 0, cap = 0;
	char line[512], name[256], mod[256], full[520], type;
	unsigned long long addr;
	FILE *f = fopen("/proc/kallsyms", "r");

	if (!f) {
		jifl_perror(PROG, jifl_err_errno(errno), "cover: /proc/kallsyms");
		return -1;
	}
	while (fgets(line, sizeof(line), f)) {
		int k = sscanf(line, "%llx %c %255s %255s", &addr, &type, name, mod);

		if (k < 3 || (type != 't' && type != 'T'))
			continue;
		if (jifl_array_room(syms, n, cap))
			goto nomem;
		/* "name [module]" */
		snprintf(full, sizeof(full), "%s%s%s", name, k == 4 ? " " : "", k == 4 ? mod : "");
		syms[n].addr = addr;
		syms[n].name = strdup(full);
		if (!syms[n].name)
			goto nomem;
		n++;
	}
	fclose(f);
	if (!n || !syms[0].addr) {
		fprintf(stderr, PROG ": cover: /proc/kallsyms shows no addresses (needs root)\n");
		free(syms);
		return -1;
	}
	qsort(syms, n, sizeof(*syms), ksym_cmp);
	*symsp = syms;
	return n;
nomem:
	fclose(f);
	fprintf(stderr, PROG ": cover: out of memory\n");
	return -1;
}

static const char *ksym_of(const struct ksym *syms, long n, uint64_t addr)
{
	long lo = 0, hi = n - 1, mid;

	if (!n || addr < syms[0].addr)
		return "?";
	while (lo < hi) {
		mid = (lo + hi + 1) / 2;
		if (syms[mid].addr <= addr)
			lo = mid;
		else
			hi = mid - 1;
	}
	return syms[lo].name;
}

/* The KASLR offset the cover tool took away from its addresses. */
static int kaslr_offset(uint64_t *off)
{
	char *text, *p;
	int err = jifl_proc_read(JIFL_PROC_TOOL, &text);

	if (err) {
		ctl_file_error(JIFL_PROC_TOOL, err);
		return -1;
	}
	p = strstr(text, OFFSET_LINE);
	if (!p || sscanf(p + strlen(OFFSET_LINE), "%" SCNx64, off) != 1) {
		fprintf(stderr, PROG ": cover: the active tool is not cover (it changed "
			"during the run?)\n");
		free(text);
		return -1;
	}
	free(text);
	return 0;
}

static int addr_cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static int func_cmp(const void *a, const void *b)
{
	const struct func *x = a, *y = b;

	if (x->runs != y->runs)
		return x->runs < y->runs ? 1 : -1;
	return strcmp(x->name, y->name);
}

/* Functions by blocks run, most first. */
static int print_functions(const uint64_t *rec, unsigned long n)
{
	struct ksym *syms;
	struct func *funcs;
	uint64_t *sorted, off;
	long nsyms = 0;
	unsigned long i, nf = 0;

	if (kaslr_offset(&off))
		return -1;
	nsyms = ksyms_load(&syms);
	if (nsyms < 0)
		return -1;
	sorted = malloc((n + 1) * sizeof(*sorted));
	funcs = calloc(n + 1, sizeof(*funcs));
	if (!sorted || !funcs) {
		fprintf(stderr, PROG ": cover: out of memory\n");
		return -1;
	}
	memcpy(sorted, rec, n * sizeof(*sorted));
	qsort(sorted, n, sizeof(*sorted), addr_cmp);
	for (i = 0; i < n; i++) {
		const char *name = ksym_of(syms, nsyms, sorted[i] + off);

		if (!nf || strcmp(funcs[nf - 1].name, name)) {
			funcs[nf].name = name;
			nf++;
		}
		funcs[nf - 1].runs++;
		funcs[nf - 1].blocks += !i || sorted[i] != sorted[i - 1];
	}
	/* a function's blocks are next to each other in address order */
	qsort(funcs, nf, sizeof(*funcs), func_cmp);
	printf("# runs blocks function\n");
	for (i = 0; i < nf; i++)
		printf("%lu %lu %s\n", funcs[i].runs, funcs[i].blocks, funcs[i].name);
	printf("# %lu blocks run, %lu functions\n", n, nf);
	free(sorted);
	free(funcs);
	while (nsyms--)
		free(syms[nsyms].name);
	free(syms);
	return 0;
}

struct cover {
	int fd;
	uint64_t *area;
};

/* In the child, before execvp(): collect from here on. */
static int cover_start(void *arg)
{
	struct cover *c = arg;

	if (ioctl(c->fd, KCOV_ENABLE, KCOV_TRACE_PC)) {
		jifl_perror_hint(PROG, jifl_err_errno(errno), errno == ENODEV ?
				 "the active tool is not cover" : NULL, "cover: KCOV_ENABLE");
		return -1;
	}
	__atomic_store_n(&c->area[0], 0, __ATOMIC_RELAXED);
	return 0;
}

int ctl_cover(const struct ctl_opts *o)
{
	struct jifl_proc_control saved;
	char path[256];
	struct cover c;
	unsigned long n, i;
	int status, ret = 1;
	size_t bytes = o->size * sizeof(uint64_t);
	pid_t pid;

	if (run_tool_switch("cover", &saved))
		return 1;
	jifl_proc_path(COVER_FILE, path, sizeof(path));
	c.fd = open(path, O_RDWR | O_CLOEXEC);
	if (c.fd < 0) {
		jifl_perror(PROG, jifl_err_errno(errno), "cover: %s", path);
		goto out_tool;
	}
	if (ioctl(c.fd, KCOV_INIT_TRACE, o->size)) {
		jifl_perror(PROG, jifl_err_errno(errno), "cover: KCOV_INIT_TRACE %lu", o->size);
		goto out_close;
	}
	c.area = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, c.fd, 0);
	if (c.area == MAP_FAILED) {
		jifl_perror(PROG, jifl_err_errno(errno), "cover: mmap");
		goto out_close;
	}
	/* the file stays open here: collecting goes on past the child's exec */
	if (run_command(o, "cover", 0, cover_start, &c, &pid, &status))
		goto out_unmap;
	n = __atomic_load_n(&c.area[0], __ATOMIC_RELAXED);
	if (n >= o->size - 1)
		jifl_warn(PROG, "cover: the buffer filled up (%lu blocks): later blocks "
			  "are missing; a larger --size keeps them", n);
	if (o->raw) {
		for (i = 0; i < n; i++)
			printf("0x%" PRIx64 "\n", c.area[i + 1]);
	} else if (print_functions(c.area + 1, n)) {
		goto out_unmap;
	}
	run_report_exit(o, pid, status);
	ret = run_exit_code(status);
out_unmap:
	munmap(c.area, bytes);
out_close:
	close(c.fd);
out_tool:
	if (run_tool_restore("cover", &saved))
		ret = 1;
	return ret;
}
