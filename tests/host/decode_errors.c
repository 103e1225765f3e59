// SPDX-License-Identifier: GPL-2.0
/*
 * jifl-decode's messages when decoding fails: the reason, not a guess.
 * Each -j worker opens the trace again; a worker that cannot (here: a
 * preloaded open() that refuses the second open of the file, as a file
 * removed or made unreadable meanwhile would) is named as that, with
 * the system's reason, and not as "out of memory".
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kselftest_harness.h"
#include "cmd.h"
#include "tools.h"
#include "tmpdir.h"

#define SWTRACE	JIFL_TOP "/build/bin/jifl-swtrace"
#define PROGS	JIFL_TOP "/build/tests/progs/"

/* open() and open64() that fail with EACCES from the second open of $FAIL_REOPEN on */
static const char shim[] =
	"#define _GNU_SOURCE\n"
	"#include <dlfcn.h>\n#include <errno.h>\n#include <fcntl.h>\n"
	"#include <stdarg.h>\n#include <stdlib.h>\n#include <string.h>\n"
	"static int opens;\n"
	"static int refuse(const char *path)\n"
	"{\n"
	"	const char *f = getenv(\"FAIL_REOPEN\");\n"
	"	return f && !strcmp(path, f) && opens++ > 0;\n"
	"}\n"
	"#define WRAP(name) \\\n"
	"int name(const char *path, int flags, ...)\\\n"
	"{\\\n"
	"	static int (*real)(const char *, int, ...);\\\n"
	"	va_list ap;\\\n"
	"	int mode;\\\n"
	"	va_start(ap, flags);\\\n"
	"	mode = va_arg(ap, int);\\\n"
	"	va_end(ap);\\\n"
	"	if (refuse(path)) {\\\n"
	"		errno = EACCES;\\\n"
	"		return -1;\\\n"
	"	}\\\n"
	"	if (!real)\\\n"
	"		real = dlsym(RTLD_NEXT, #name);\\\n"
	"	return real(path, flags, mode);\\\n"
	"}\n"
	"WRAP(open)\nWRAP(open64)\n";

FIXTURE(errs) {
	char dir[64];
	char data[128];
	char lib[128];
	char out[8192];
};

FIXTURE_SETUP(errs)
{
	char src[128];
	FILE *f;

	ASSERT_EQ(0, tmpdir_make(self->dir, sizeof(self->dir), "decode-errs"));
	snprintf(self->data, sizeof(self->data), "%s/perf.data", self->dir);
	snprintf(self->lib, sizeof(self->lib), "%s/reopen.so", self->dir);
	snprintf(src, sizeof(src), "%s/reopen.c", self->dir);
	f = fopen(src, "w");
	ASSERT_NE(NULL, f);
	ASSERT_EQ(1, fwrite(shim, sizeof(shim) - 1, 1, f));
	ASSERT_EQ(0, fclose(f));
	ASSERT_EQ(0, cmd_run(self->out, sizeof(self->out), "cc -shared -fPIC -o %s %s -ldl",
			     self->lib, src)) TH_LOG("%s", self->out);
	/* four CPUs' queues, so that -j 4 has workers */
	ASSERT_EQ(0, cmd_run(self->out, sizeof(self->out),
			     "%s -q --per-cpu --cpus 4 -o %s -- " PROGS "swt_thread",
			     SWTRACE, self->data)) TH_LOG("%s", self->out);
}

FIXTURE_TEARDOWN(errs)
{
	tmpdir_remove(self->dir);
}

TEST_F(errs, a_worker_that_cannot_open_the_trace_is_named)
{
	char want[256];
	int st;

	/* the shim itself: one open is allowed */
	ASSERT_EQ(0, cmd_run(self->out, sizeof(self->out),
			     "{ FAIL_REOPEN=%s LD_PRELOAD=%s %s -i %s -j 1 --stats > /dev/null; }",
			     self->data, self->lib, decoder(), self->data)) TH_LOG("%s", self->out);
	st = cmd_run(self->out, sizeof(self->out),
		     "{ FAIL_REOPEN=%s LD_PRELOAD=%s %s -i %s -j 4 --insn > /dev/null; }",
		     self->data, self->lib, decoder(), self->data);
	EXPECT_EQ(1, st) TH_LOG("%s", self->out);
	EXPECT_EQ(NULL, strstr(self->out, "out of memory")) TH_LOG("%s", self->out);
	/* once, as TOOL: what: why */
	snprintf(want, sizeof(want), "jifl-decode: decoding '%s': Permission denied\n",
		 self->data);
	EXPECT_STREQ(want, self->out);
}

TEST_HARNESS_MAIN
