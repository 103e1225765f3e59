// SPDX-License-Identifier: GPL-2.0
/*
 * README.md against the tree: every "make TARGET" its command lines name
 * is one "make help" lists, and every target "make help" lists is in
 * README.md; README.md fits on two screens and holds no dated log.
 */
#include <ctype.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kselftest_harness.h"
#include "cmd.h"

#define README		JIFL_TOP "/README.md"
#define MAX_LINES	120

static char readme[65536], help[16384];

static void load(struct __test_metadata *_metadata)
{
	FILE *f = fopen(README, "r");
	size_t n;

	ASSERT_NE(NULL, f);
	n = fread(readme, 1, sizeof(readme) - 1, f);
	fclose(f);
	ASSERT_LT(n, sizeof(readme) - 1);
	readme[n] = '\0';
	ASSERT_EQ(0, cmd_run(help, sizeof(help), "make -s --no-print-directory -C %s help",
			     JIFL_TOP));
}

/* Call @fn for each target of a line "make A | B ... # comment" of @text. */
static int each_target(const char *text, int (*fn)(const char *target, void *arg), void *arg)
{
	const char *line, *p, *end;
	char target[64];
	int bad = 0;
	size_t n;

	for (line = text; *line; line = end + (*end == '\n')) {
		end = line + strcspn(line, "\n");
		for (p = line; p < end && isspace((unsigned char)*p); p++)
			;
		/* an indented command line of a code block: "make ..." */
		if (p == line || end - p < 5 || strncmp(p, "make ", 5))
			continue;
		p += 5;
		for (;;) {
			while (p < end && *p == ' ')
				p++;
			n = 0;
			while (p < end && (isalnum((unsigned char)*p) || *p == '-' || *p == '_') &&
			       n < sizeof(target) - 1)
				target[n++] = *p++;
			target[n] = '\0';
			if (n)
				bad += fn(target, arg);
			while (p < end && *p == ' ')
				p++;
			if (p >= end || *p != '|')
				break;
			p++;
		}
	}
	return bad;
}

/* Is "make @target" the start of a line of "make help"? */
static int not_in_help(const char *target, void *arg)
{
	char want[80];
	const char *p;
	size_t n;

	(void)arg;
	n = (size_t)snprintf(want, sizeof(want), "make %s", target);
	for (p = help; (p = strstr(p, want)); p++)
		if ((p == help || p[-1] == '\n') && (p[n] == ' ' || p[n] == '\n'))
			return 0;
	printf("# README.md names \"make %s\", which \"make help\" does not list\n", target);
	return 1;
}

static int seen(const char *target, void *arg)
{
	char *found = arg;

	if (strlen(found) + strlen(target) + 3 < 4096) {
		strcat(found, " ");
		strcat(found, target);
		strcat(found, " ");
	}
	return 0;
}

TEST(readme_names_only_targets_make_help_lists)
{
	int bad;

	load(_metadata);
	bad = each_target(readme, not_in_help, NULL);
	EXPECT_EQ(0, bad);
}

TEST(every_target_make_help_lists_is_in_readme)
{
	static char found[4096], want[80];
	const char *line, *end;
	char target[64];
	int n, bad = 0;

	load(_metadata);
	each_target(readme, seen, found);
	ASSERT_NE('\0', found[0]);
	for (line = help; *line; line = end + (*end == '\n')) {
		end = line + strcspn(line, "\n");
		if (sscanf(line, "make %63[A-Za-z0-9_-]%n", target, &n) != 1)
			continue;
		snprintf(want, sizeof(want), " %s ", target);
		if (!strstr(found, want)) {
			TH_LOG("\"make help\" lists \"make %s\", README.md's commands do not", target);
			bad++;
		}
	}
	EXPECT_EQ(0, bad);
}

TEST(readme_fits_on_two_screens_and_keeps_no_dated_log)
{
	regex_t date;
	const char *p;
	int lines = 0;

	load(_metadata);
	for (p = readme; *p; p++)
		lines += *p == '\n';
	EXPECT_GE(MAX_LINES, lines);
	ASSERT_EQ(0, regcomp(&date, "20[0-9][0-9]-[01][0-9]-[0-3][0-9]", REG_EXTENDED | REG_NOSUB));
	EXPECT_NE(0, regexec(&date, readme, 0, NULL, 0)) TH_LOG("README.md holds a date");
	regfree(&date);
}

TEST_HARNESS_MAIN
