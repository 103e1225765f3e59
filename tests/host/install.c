// SPDX-License-Identifier: GPL-2.0
/*
 * Installing the tools. "make install" into a scratch DESTDIR puts the
 * four tools, their man pages and bash completions where PREFIX, BINDIR,
 * MANDIR say; the installed tools run and print the version that
 * scripts/version.sh gives; bash-completion finds their completions;
 * "make uninstall" removes it all. "make deb" builds a package with the
 * same version, those files, and the library dependencies dpkg-shlibdeps
 * computes; its tools run from a scratch root, apt accepts it, and every
 * tag lintian gives it is explained in Documentation/packaging.rst.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "cmd.h"
#include "tmpdir.h"

#define MAKE		"make -s --no-print-directory -C " JIFL_TOP
#define COMPLETE	JIFL_TOP "/tests/host/complete.sh"
#define LINTIAN_DOC	JIFL_TOP "/Documentation/packaging.rst"

static const char *const tools[] = { "jifl-swtrace", "flowjit", "jifl-decode", "jiflctl" };
#define NR_TOOLS	(sizeof(tools) / sizeof(tools[0]))

FIXTURE(install) {
	char dir[64];
	char path[256];
	char version[128];
	char out[16384];
};

FIXTURE_SETUP(install)
{
	ASSERT_EQ(0, tmpdir_make(self->dir, sizeof(self->dir), "install"));
}

FIXTURE_TEARDOWN(install)
{
	tmpdir_remove(self->dir);
}

/* Run "make ARGS" (printf-style) at the top; its status, output in self->out. */
static int __attribute__((format(printf, 3, 4)))
make(struct __test_metadata *_metadata, FIXTURE_DATA(install) *self, const char *fmt, ...)
{
	char args[512];
	va_list ap;
	int st;

	va_start(ap, fmt);
	vsnprintf(args, sizeof(args), fmt, ap);
	va_end(ap);
	st = cmd_run(self->out, sizeof(self->out), MAKE " %s", args);
	if (st)
		TH_LOG("make %s -> %d\n%s", args, st, self->out);
	return st;
}

/* self->version: what every tool must print, read after a build. */
static void read_version(struct __test_metadata *_metadata, FIXTURE_DATA(install) *self)
{
	ASSERT_EQ(0, cmd_run(self->version, sizeof(self->version),
			     JIFL_TOP "/scripts/version.sh"));
	self->version[strcspn(self->version, "\n")] = '\0';
	ASSERT_NE('\0', self->version[0]);
}

/* @text has @line as one of its lines. */
static int has_line(const char *text, const char *line)
{
	size_t n = strlen(line);
	const char *p;

	for (p = text; (p = strstr(p, line)); p++)
		if ((p == text || p[-1] == '\n') && (p[n] == '\n' || !p[n]))
			return 1;
	return 0;
}

/* The first line of @text that starts with @prefix, or NULL. */
static const char *line_starting(const char *text, const char *prefix)
{
	const char *p;

	for (p = text; (p = strstr(p, prefix)); p++)
		if (p == text || p[-1] == '\n')
			return p;
	return NULL;
}

/* The file at @path contains @needle. */
static int file_has(const char *path, const char *needle)
{
	char buf[65536];
	size_t n;
	FILE *f = fopen(path, "re");

	if (!f)
		return 0;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	return strstr(buf, needle) != NULL;
}

/* Each tool in @bindir prints "TOOL VERSION" for --version, usage for --help. */
static void check_tools_run(struct __test_metadata *_metadata,
			    FIXTURE_DATA(install) *self, const char *bindir)
{
	char want[192];
	size_t i;

	for (i = 0; i < NR_TOOLS; i++) {
		EXPECT_EQ(0, cmd_run(self->out, sizeof(self->out), "%s/%s --version",
				     bindir, tools[i]));
		snprintf(want, sizeof(want), "%s %s\n", tools[i], self->version);
		EXPECT_STREQ(want, self->out);
		EXPECT_EQ(0, cmd_run(self->out, sizeof(self->out), "%s/%s --help",
				     bindir, tools[i]));
		EXPECT_NE(NULL, strstr(self->out, "usage: ")) TH_LOG("%s: %s", tools[i], self->out);
		EXPECT_NE(NULL, strstr(self->out, "--version")) TH_LOG("%s: %s", tools[i], self->out);
	}
}

/* Exactly these files under self->dir (sorted "find -type f" paths). */
static void check_files(struct __test_metadata *_metadata, FIXTURE_DATA(install) *self,
			const char *want)
{
	EXPECT_EQ(0, cmd_run(self->out, sizeof(self->out),
			     "cd %s && find . -type f | LC_ALL=C sort", self->dir));
	EXPECT_STREQ(want, self->out);
}

TEST_F(install, default_prefix)
{
	char name[64];
	size_t i;

	ASSERT_EQ(0, make(_metadata, self, "install DESTDIR=%s", self->dir));
	read_version(_metadata, self);
	check_files(_metadata, self,
		    "./usr/local/bin/flowjit\n"
		    "./usr/local/bin/jifl-decode\n"
		    "./usr/local/bin/jifl-swtrace\n"
		    "./usr/local/bin/jiflctl\n"
		    "./usr/local/share/bash-completion/completions/flowjit\n"
		    "./usr/local/share/bash-completion/completions/jifl-decode\n"
		    "./usr/local/share/bash-completion/completions/jifl-swtrace\n"
		    "./usr/local/share/bash-completion/completions/jiflctl\n"
		    "./usr/local/share/man/man1/flowjit.1\n"
		    "./usr/local/share/man/man1/jifl-decode.1\n"
		    "./usr/local/share/man/man1/jifl-swtrace.1\n"
		    "./usr/local/share/man/man1/jiflctl.1\n");
	snprintf(self->path, sizeof(self->path), "%s/usr/local/bin", self->dir);
	check_tools_run(_metadata, self, self->path);
	for (i = 0; i < NR_TOOLS; i++) {
		/* The tool's man page, documenting --version, formatted without a warning. */
		snprintf(self->path, sizeof(self->path), "%s/usr/local/share/man/man1/%s.1",
			 self->dir, tools[i]);
		snprintf(name, sizeof(name), "\n.SH NAME\n%s \\-", tools[i]);
		EXPECT_TRUE(file_has(self->path, name)) TH_LOG("%s: no NAME %s", self->path, name);
		EXPECT_TRUE(file_has(self->path, "\\-\\-version")) TH_LOG("%s", self->path);
		EXPECT_EQ(0, cmd_run(self->out, sizeof(self->out),
				     "{ MANWIDTH=80 man --warnings -l %s >/dev/null; }", self->path));
		EXPECT_STREQ("", self->out);
	}
}

TEST_F(install, dirs_as_given_and_uninstall)
{
	static const char dirs[] = "PREFIX=/opt/jifl BINDIR=/opt/bin MANDIR=/opt/jifl/man";

	ASSERT_EQ(0, make(_metadata, self, "install DESTDIR=%s %s", self->dir, dirs));
	read_version(_metadata, self);
	check_files(_metadata, self,
		    "./opt/bin/flowjit\n"
		    "./opt/bin/jifl-decode\n"
		    "./opt/bin/jifl-swtrace\n"
		    "./opt/bin/jiflctl\n"
		    "./opt/jifl/man/man1/flowjit.1\n"
		    "./opt/jifl/man/man1/jifl-decode.1\n"
		    "./opt/jifl/man/man1/jifl-swtrace.1\n"
		    "./opt/jifl/man/man1/jiflctl.1\n"
		    "./opt/jifl/share/bash-completion/completions/flowjit\n"
		    "./opt/jifl/share/bash-completion/completions/jifl-decode\n"
		    "./opt/jifl/share/bash-completion/completions/jifl-swtrace\n"
		    "./opt/jifl/share/bash-completion/completions/jiflctl\n");
	snprintf(self->path, sizeof(self->path), "%s/opt/bin", self->dir);
	check_tools_run(_metadata, self, self->path);

	/* A file of someone else's in the same directories stays. */
	ASSERT_EQ(0, cmd_run(self->out, sizeof(self->out), "touch %s/opt/bin/other",
			     self->dir));
	ASSERT_EQ(0, make(_metadata, self, "uninstall DESTDIR=%s %s", self->dir, dirs));
	check_files(_metadata, self, "./opt/bin/other\n");
}

/* What bash completion offers for a command line (one word a line). */
static const struct {
	const char *line;	/* the last word is completed */
	const char *want;	/* a candidate that must be offered */
	const char *not;	/* one that must not be, or NULL */
} completions[] = {
	{ "jifl-swtrace --ps", "--psb-period", NULL },
	{ "jifl-swtrace --v", "--version", NULL },
	{ "jifl-swtrace -o out -- ech", "echo", "--output" },
	{ "jifl-swtrace -q ech", "echo", NULL },
	{ "jifl-swtrace --bu", "--buildid-dir", NULL },
	{ "jifl-swtrace --no-b", "--no-buildid-cache", "--no-pin" },
	{ "jifl-swtrace --per", "--per-cpu", NULL },
	{ "jifl-swtrace --per-cpu --switches ''", "cpu-wide", "--cpus" },
	{ "jifl-swtrace --per-cpu --cpus 2 ech", "echo", "--timeslice" },
	{ "flowjit ''", "record", "--events" },
	{ "flowjit ''", "report", NULL },
	{ "flowjit --v", "--version", NULL },
	{ "flowjit record --a", "--all-exec", NULL },
	{ "flowjit record -b 4096 -- ech", "echo", "--all-exec" },
	{ "flowjit report --", "--events", "--all-exec" },
	{ "flowjit ''", "jitdump", NULL },
	{ "flowjit jitdump --", "--dir", "--events" },
	{ "flowjit jitdump -q --in", "--input", NULL },
	{ "jifl-decode --no", "--no-progress", NULL },
	{ "jifl-decode --decoder ''", "block", "--insn" },
	{ "jifl-decode --decoder=i", "insn", NULL },
	{ "jifl-decode -i perf.data --st", "--stats", NULL },
	{ "jifl-decode --v", "--version", NULL },
	{ "jifl-decode --ti", "--tid", "--pid" },
	{ "jifl-decode -F ''", "comm", "--insn" },
	{ "jifl-decode --fields time,d", "time,dso", NULL },
	{ "jiflctl ''", "enable", NULL },
	{ "jiflctl ''", "run", "--json" },
	{ "jiflctl --v", "--version", NULL },
	{ "jiflctl enable --", "--syscalls", "--json" },
	{ "jiflctl enable --syscalls ''", "none", NULL },
	{ "jiflctl stats --", "--json", "--syscalls" },
	{ "jiflctl run --quiet -- ech", "echo", NULL },
	{ "jiflctl tool ''", "null", NULL },
	{ "jiflctl tool b", "bbcount", NULL },
	{ "jiflctl ''", "bbcount", NULL },
	{ "jiflctl bbcount --", "--top", "--json" },
	{ "jiflctl bbcount --r", "--reset", NULL },
	{ "jiflctl bbcount --s", "--syscalls", NULL },
	{ "jiflctl bbcount --syscalls read -- ech", "echo", NULL },
};

TEST_F(install, completion)
{
	size_t i;

	if (access("/usr/share/bash-completion/bash_completion", R_OK))
		SKIP(return, "bash-completion not installed");
	ASSERT_EQ(0, make(_metadata, self, "install DESTDIR=%s", self->dir));
	for (i = 0; i < sizeof(completions) / sizeof(completions[0]); i++) {
		EXPECT_EQ(0, cmd_run(self->out, sizeof(self->out), COMPLETE " %s/usr/local/share %s",
				     self->dir, completions[i].line));
		EXPECT_TRUE(has_line(self->out, completions[i].want))
			TH_LOG("'%s' does not offer %s:\n%s", completions[i].line,
			       completions[i].want, self->out);
		if (completions[i].not)
			EXPECT_FALSE(has_line(self->out, completions[i].not))
				TH_LOG("'%s' offers %s:\n%s", completions[i].line,
				       completions[i].not, self->out);
	}
	/* The helper fails where no completion is installed. */
	EXPECT_NE(0, cmd_run(self->out, sizeof(self->out), COMPLETE " %s/usr/local/share ls ''",
			     self->dir));
}

/* make deb; self->path: the package it must have built. */
static void make_deb(struct __test_metadata *_metadata, FIXTURE_DATA(install) *self)
{
	char arch[32];

	ASSERT_EQ(0, make(_metadata, self, "deb"));
	read_version(_metadata, self);
	ASSERT_EQ(0, cmd_run(arch, sizeof(arch), "dpkg --print-architecture"));
	arch[strcspn(arch, "\n")] = '\0';
	snprintf(self->path, sizeof(self->path), JIFL_TOP "/build/jifl-tools_%s_%s.deb",
		 self->version, arch);
	ASSERT_EQ(0, access(self->path, R_OK)) TH_LOG("no %s", self->path);
}

/* The runtime libraries the tools link, as package names start. */
static const char *const deb_depends[] = { "libc6", "libelf", "libipt", "libzydis" };

TEST_F(install, deb)
{
	const char *dep;
	char want[256];
	size_t i;

	make_deb(_metadata, self);
	ASSERT_EQ(0, cmd_run(self->out, sizeof(self->out), "dpkg-deb -f %s Package Version",
			     self->path));
	snprintf(want, sizeof(want), "Package: jifl-tools\nVersion: %s\n", self->version);
	EXPECT_STREQ(want, self->out);

	/* dpkg-shlibdeps' work: every library's package, with its minimum version. */
	ASSERT_EQ(0, cmd_run(self->out, sizeof(self->out),
			     "dpkg-deb -f %s Depends | tr -d '\\n' | sed 's/, */\\n/g'", self->path));
	TH_LOG("Depends:\n%s", self->out);
	for (i = 0; i < sizeof(deb_depends) / sizeof(deb_depends[0]); i++) {
		dep = line_starting(self->out, deb_depends[i]);
		EXPECT_NE(NULL, dep) TH_LOG("no %s", deb_depends[i]);
		if (dep)
			EXPECT_EQ(0, strncmp(dep + strcspn(dep, " \n"), " (>= ", 5))
				TH_LOG("%s without a minimum version", deb_depends[i]);
	}

	/* The files, root's, under /usr; the man pages compressed. */
	ASSERT_EQ(0, cmd_run(self->out, sizeof(self->out),
			     "dpkg-deb -c %s | awk '$2 != \"root/root\" { print \"owner:\", $0 }"
			     " $1 ~ /^-/ { print $6 }' | LC_ALL=C sort", self->path));
	EXPECT_STREQ("./usr/bin/flowjit\n"
		     "./usr/bin/jifl-decode\n"
		     "./usr/bin/jifl-swtrace\n"
		     "./usr/bin/jiflctl\n"
		     "./usr/share/bash-completion/completions/flowjit\n"
		     "./usr/share/bash-completion/completions/jifl-decode\n"
		     "./usr/share/bash-completion/completions/jifl-swtrace\n"
		     "./usr/share/bash-completion/completions/jiflctl\n"
		     "./usr/share/doc/jifl-tools/changelog.gz\n"
		     "./usr/share/doc/jifl-tools/copyright\n"
		     "./usr/share/man/man1/flowjit.1.gz\n"
		     "./usr/share/man/man1/jifl-decode.1.gz\n"
		     "./usr/share/man/man1/jifl-swtrace.1.gz\n"
		     "./usr/share/man/man1/jiflctl.1.gz\n", self->out);

	/* Unpacked anywhere, the tools run. */
	ASSERT_EQ(0, cmd_run(self->out, sizeof(self->out), "dpkg -x %s %s/root",
			     self->path, self->dir)) TH_LOG("%s", self->out);
	snprintf(want, sizeof(want), "%s/root/usr/bin", self->dir);
	check_tools_run(_metadata, self, want);
}

/* apt would install it here: its dependencies resolve (a simulation). */
TEST_F(install, deb_apt_accepts)
{
	make_deb(_metadata, self);
	EXPECT_EQ(0, cmd_run(self->out, sizeof(self->out),
			     "apt-get -s -o Debug::NoLocking=1 install %s", self->path));
	EXPECT_TRUE(strstr(self->out, "Inst jifl-tools ") ||
		    strstr(self->out, "jifl-tools is already the newest version"))
		TH_LOG("%s", self->out);
}

/* No lintian error; every other tag is explained in the documentation. */
TEST_F(install, deb_lintian)
{
	char tag[128], quoted[132], *line, *save;

	if (cmd_run(self->out, sizeof(self->out), "command -v lintian"))
		SKIP(return, "lintian not installed");
	make_deb(_metadata, self);
	ASSERT_EQ(0, cmd_run(self->out, sizeof(self->out),
			     "lintian --display-info --fail-on none %s", self->path));
	TH_LOG("lintian:\n%s", self->out);
	/* "W: jifl-tools: tag-name details" */
	for (line = strtok_r(self->out, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		if (line[1] != ':' || sscanf(line, "%*c: %*s %127s", tag) != 1)
			continue;
		EXPECT_NE('E', line[0]) TH_LOG("%s", line);
		snprintf(quoted, sizeof(quoted), "``%s``", tag);
		EXPECT_TRUE(file_has(LINTIAN_DOC, quoted)) TH_LOG("%s: not in " LINTIAN_DOC, quoted);
	}
}

TEST_HARNESS_MAIN
