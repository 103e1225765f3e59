/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A tool's --help, its man page and its bash completion name the same
 * options: an option added to one and forgotten in another fails the
 * check. --help's option lines start with the options, before the two
 * spaces that start their description; the man page's are the lines
 * after .TP in OPTIONS; the completion offers the long ones, in the
 * compgen -W lists of the tool's function. A placeholder N
 * (--filter:addrN_cfg) stands for 0 to 3 in the completion.
 */
#ifndef JIFL_TESTS_HELP_OPTS_H
#define JIFL_TESTS_HELP_OPTS_H

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kselftest_harness.h"
#include "cmd.h"

#define COMPLETION	JIFL_TOP "/userspace/completion/jifl-tools.bash"
#define MAX_OPTS	64
#define OPT_LEN		48

struct opts {
	char v[MAX_OPTS][OPT_LEN];
	size_t n;
};

static int cmp(const void *a, const void *b)
{
	return strcmp(a, b);
}

/* Add @len bytes at @s, once. */
static void add(struct opts *o, const char *s, size_t len)
{
	size_t i;

	if (len >= OPT_LEN || o->n == MAX_OPTS)
		return;
	for (i = 0; i < o->n; i++)
		if (!strncmp(o->v[i], s, len) && !o->v[i][len])
			return;
	memcpy(o->v[o->n], s, len);
	o->v[o->n++][len] = '\0';
}

/* Every option in @s up to @end: "-x" or "--name" at the start or after a blank or ','. */
static void scan(struct opts *o, const char *s, const char *end)
{
	const char *p, *q;

	for (p = s; p < end; p++) {
		if (*p != '-' || (p > s && !strchr(" \t,", p[-1])))
			continue;
		q = p + 1 + (p[1] == '-');
		if (!isalpha((unsigned char)*q))
			continue;
		while (q < end && (isalnum((unsigned char)*q) || strchr("-_:", *q)))
			q++;
		add(o, p, q - p);
		p = q;
	}
}

/* "A\nB\n...", sorted: what EXPECT_STREQ shows when two differ. */
static void join(struct opts *o, char *out, size_t len)
{
	size_t i;
	char *p = out;

	qsort(o->v, o->n, sizeof(o->v[0]), cmp);
	*p = '\0';
	for (i = 0; i < o->n; i++)
		p += snprintf(p, len - (p - out), "%s\n", o->v[i]);
}

static void help_opts(const char *text, struct opts *o)
{
	const char *line, *end, *desc, *s;

	for (line = text; *line; line = *end ? end + 1 : end) {
		end = strchrnul(line, '\n');
		s = line + strspn(line, " ");
		if (*s != '-')
			continue;
		desc = strstr(s, "  ");
		scan(o, s, desc && desc < end ? desc : end);
	}
}

/* Drop troff's font changes and quotes, "\-" becomes "-". */
static void untroff(const char *s, const char *end, char *out, size_t len)
{
	char *o = out;

	for (; s < end && o + 1 < out + len; s++) {
		if (s[0] == '\\' && s[1] == 'f' && s + 2 < end)
			s += 2;
		else if (s[0] == '\\' && s[1] == '-')
			*o++ = *++s;
		else if (*s != '"')
			*o++ = *s;
	}
	*o = '\0';
}

static void man_opts(const char *text, struct opts *o)
{
	const char *line, *end, *from = strstr(text, "\n.SH OPTIONS\n");
	const char *to = from ? strstr(from + 1, "\n.SH ") : NULL;
	char buf[512];
	int tp = 0;

	for (line = from ? from + 1 : NULL; line && line < to; line = end + 1) {
		end = strchrnul(line, '\n');
		if (tp) {
			untroff(line, end, buf, sizeof(buf));
			scan(o, buf, buf + strlen(buf));
		}
		tp = !strncmp(line, ".TP\n", 4);
	}
}

/*
 * The options the completion function @fn ("_jifl_decode") offers: those
 * in its compgen -W '...' lists and its opts='...' lists (a subcommand's,
 * offered by compgen -W "$opts"), of all its subcommands.
 */
static void completion_opts(const char *text, const char *fn, struct opts *o)
{
	static const char *const lists[] = { "compgen -W '", "opts='" };
	const char *f, *fend, *w, *end;
	char head[64];
	size_t i;

	snprintf(head, sizeof(head), "\n%s()", fn);
	f = strstr(text, head);
	fend = f ? strstr(f, "\n}") : NULL;
	for (i = 0; i < sizeof(lists) / sizeof(lists[0]); i++) {
		for (w = f; w && (w = strstr(w, lists[i])) && w < fend; w = end) {
			w += strlen(lists[i]);
			end = strchr(w, '\'');
			if (!end)
				break;
			scan(o, w, end);
		}
	}
}

/* --help's long options, a placeholder N as 0 to 3. */
static void expand(const struct opts *in, struct opts *out)
{
	char name[OPT_LEN], *n;
	size_t i;
	int k;

	for (i = 0; i < in->n; i++) {
		if (strncmp(in->v[i], "--", 2))
			continue;
		n = strchr(in->v[i], 'N');
		if (!n) {
			add(out, in->v[i], strlen(in->v[i]));
			continue;
		}
		for (k = 0; k < 4; k++) {
			snprintf(name, sizeof(name), "%.*s%d%s", (int)(n - in->v[i]), in->v[i], k,
				 n + 1);
			add(out, name, strlen(name));
		}
	}
}

static char *slurp(const char *path)
{
	static char buf[1 << 17];
	FILE *f = fopen(path, "re");
	size_t n;

	if (!f)
		return NULL;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	buf[n] = '\0';
	fclose(f);
	return buf;
}

/*
 * The --help of @cmd, its man page @man_path and its completion
 * function @fn agree on at least @min options.
 */
static void check_help_opts(struct __test_metadata *_metadata, const char *cmd,
			    const char *man_path, const char *fn, size_t min)
{
	static struct opts help, man, comp, longs;
	static char out[1 << 14], a[4096], b[4096];
	const char *text;

	memset(&help, 0, sizeof(help));
	memset(&man, 0, sizeof(man));
	memset(&comp, 0, sizeof(comp));
	memset(&longs, 0, sizeof(longs));
	ASSERT_EQ(0, cmd_run(out, sizeof(out), "%s --help", cmd)) TH_LOG("%s", out);
	help_opts(out, &help);
	ASSERT_LE(min, help.n) TH_LOG("%zu options in --help", help.n);

	text = slurp(man_path);
	ASSERT_NE(NULL, text);
	man_opts(text, &man);
	join(&help, a, sizeof(a));
	join(&man, b, sizeof(b));
	EXPECT_STREQ(a, b) TH_LOG("--help (first) and the man page's OPTIONS differ");

	text = slurp(COMPLETION);
	ASSERT_NE(NULL, text);
	completion_opts(text, fn, &comp);
	expand(&help, &longs);
	join(&longs, a, sizeof(a));
	join(&comp, b, sizeof(b));
	EXPECT_STREQ(a, b) TH_LOG("--help's long options (first) and the completion differ");
}

#endif /* JIFL_TESTS_HELP_OPTS_H */
