// SPDX-License-Identifier: GPL-2.0
#include <string.h>

#include "report.h"
#include "jifl/sysset.h"

/* Counters the kernel has now; others are shown without a description. */
static const struct {
	const char *key, *what;
} counters[] = {
	{ "entries", "system calls run from the cache" },
	{ "blocks", "basic blocks translated" },
	{ "insns", "instructions translated" },
	{ "links", "direct jumps linked to a translation" },
	{ "late_links", "of which linked later, with text_poke" },
	{ "predicted_returns", "return predictions written" },
	{ "predicted_calls", "indirect call predictions written" },
	{ "extended_chains", "prediction chains extended by a sampled miss" },
	{ "leaf_copies", "blocks of small leaf functions copied for one call site" },
	{ "lookups", "indirect transfers resolved by the lookup stub" },
	{ "lookup_misses", "lookups not in the cache yet" },
	{ "native_text", "native: targets outside translatable text" },
	{ "native_trap", "native: int3 or ud2 (kprobes, BUG/WARN)" },
	{ "native_insn", "native: instruction not translated" },
	{ "native_cache_full", "native: code cache full" },
	{ "native_call", "native: direct calls of native code, back to the cache" },
	{ "native_stack_args", "native: calls of native code taking stack arguments" },
	{ "flushes", "code cache flushes" },
	{ "invalidations", "kernel text changes under translations" },
	{ "stale_blocks", "translations of changed text made stale" },
	{ "revived_blocks", "of which taken again: the text changed back" },
	{ "unlinks", "jumps into stale translations made lookups again" },
	{ "cache_bytes", "code cache size (bytes)" },
	{ "cache_used", "code cache bytes in use" },
	{ "cache_blocks", "blocks in the code cache" },
	{ "cache_records", "records in use: of blocks, predictions, stubs, native targets" },
	{ "cache_max_records", "records the cache holds; full, it is flushed" },
	{ "tool_blocks", "blocks run, as counted by the count tool" },
};

static const char *what(const char *key)
{
	size_t i;

	for (i = 0; i < sizeof(counters) / sizeof(counters[0]); i++)
		if (!strcmp(counters[i].key, key))
			return counters[i].what;
	return "";
}

/* Levels, not counts: a delta of them means nothing. */
static int is_level(const char *key)
{
	return !strncmp(key, "cache_", 6);
}

static void line(FILE *f, const char *key, unsigned long long v)
{
	fprintf(f, "  %-18s %14llu  %s\n", key, v, what(key));
}

/* "read, write, getpid" for a short set; nothing for a long one. */
static void names(FILE *f, const struct jifl_sysset *set)
{
	const char *name;
	int nr, n = 0;

	if (set->all || jifl_sysset_count(set) > 12)
		return;
	for (nr = 0; nr < JIFL_SYSSET_MAX; nr++) {
		if (!jifl_sysset_has(set, nr))
			continue;
		name = jifl_sysset_name(nr);
		fprintf(f, n++ ? ", " : " (");
		if (name)
			fputs(name, f);
		else
			fprintf(f, "%d", nr);
	}
	if (n)
		fputc(')', f);
}

void report_status(FILE *f, const struct jifl_proc_control *c,
		   const struct jifl_proc_stats *s)
{
	int i;

	fprintf(f, "JIFL:     %s\n", c->enabled ? "enabled" : "disabled");
	fprintf(f, "syscalls: %s", *c->list ? c->list : "none");
	names(f, &c->syscalls);
	fputc('\n', f);
	if (c->pid && c->tree > 0)
		fprintf(f, "pid:      %d (and the processes it creates)\n", (int)c->pid);
	else if (c->pid)
		fprintf(f, "pid:      %d (only this process)\n", (int)c->pid);
	else
		fprintf(f, "pid:      all processes\n");
	if (*c->tool)
		fprintf(f, "tool:     %s\n", c->tool);
	fprintf(f, "counters:\n");
	for (i = 0; i < s->n; i++)
		line(f, s->item[i].key, s->item[i].value);
}

void report_stats(FILE *f, const struct jifl_proc_stats *s, int json)
{
	int i;

	if (!json) {
		for (i = 0; i < s->n; i++)
			line(f, s->item[i].key, s->item[i].value);
		return;
	}
	/* keys are [a-z_]+ (the library checks): nothing to escape */
	fputc('{', f);
	for (i = 0; i < s->n; i++)
		fprintf(f, "%s\"%s\": %llu", i ? ", " : "", s->item[i].key,
			s->item[i].value);
	fputs("}\n", f);
}

void report_delta(FILE *f, const struct jifl_proc_stats *before,
		  const struct jifl_proc_stats *after)
{
	long long old;
	int i;

	for (i = 0; i < after->n; i++) {
		const char *key = after->item[i].key;
		unsigned long long v = after->item[i].value;

		old = jifl_proc_stat(before, key);
		line(f, key, is_level(key) || old < 0 ? v : v - old);
	}
}

/* %pS's "func+0xoff/0xsize [module]" without the size, as perf shows it. */
static void symbol(FILE *f, const char *s)
{
	const char *module = strstr(s, " [");
	size_t len = module ? (size_t)(module - s) : strlen(s);
	const char *slash = memrchr(s, '/', len);

	if (slash)
		len = slash - s;
	fprintf(f, "%.*s", (int)len, s);
	if (module)
		fprintf(f, "  %s", module + 1);
	fputc('\n', f);
}

void report_bbcount(FILE *f, const struct jifl_bbcount *bc, unsigned int top)
{
	size_t i, n = top && top < bc->n ? top : bc->n;
	const struct jifl_bbcount_block *b;

	fprintf(f, "    count  share  symbol\n");
	for (i = 0; i < n; i++) {
		b = &bc->block[i];
		fprintf(f, "%9llu %5.1f%%  ", (unsigned long long)b->count,
			bc->total ? 100.0 * b->count / bc->total : 0.0);
		symbol(f, b->symbol);
	}
	fprintf(f, "# %llu blocks, %llu executions, %llu instructions; "
		"not counted: %llu (max_blocks %llu)\n",
		(unsigned long long)bc->blocks, (unsigned long long)bc->total,
		(unsigned long long)bc->insns,
		(unsigned long long)bc->not_counted, (unsigned long long)bc->max_blocks);
}
