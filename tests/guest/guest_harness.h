/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The kselftest harness for guest tests, with every test's timeout
 * scaled to the kernel it runs on.
 *
 * A KASAN + lockdep kernel runs several times slower under TCG than the
 * test kernel, so a timeout sized for one is wrong for the other. The
 * guest's run-tests exports JIFL_TIME_SCALE (from jifltimescale= on the
 * kernel command line, else 4 on a KASAN kernel, else 1); each test's
 * TEST_F_TIMEOUT value (or the harness default) is multiplied by it
 * before the first test runs. Tests that size their own waits use
 * guest_time_scale() too.
 *
 * JIFL_TEST_ONLY=name,name (test names without the fixture) runs only
 * those tests of the binary, for work on one test: scripts/qemu-run.sh
 * -c with "JIFL_TEST_ONLY=... /jifl/tests/BINARY".
 *
 * Use guest_harness_run() where a test has its own main(), or
 * TEST_HARNESS_MAIN as usual.
 */
#ifndef JIFL_GUEST_HARNESS_H
#define JIFL_GUEST_HARNESS_H

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kselftest_harness.h"

#define GUEST_TIME_SCALE_MAX	20

/*
 * The programs guest tests run are in the guest image by construction:
 * scripts/mkinitramfs.sh refuses to build one without those listed in
 * tests/guest/programs, and make initramfs packs the project's tools
 * (build/bin) with the libraries they load. One missing is a broken
 * image, not a kernel to skip on: the test fails, so that a run that
 * could not test what it claims cannot pass.
 */
#define GUEST_NOT_IN_IMAGE \
	"not in the guest image (tests/guest/programs, build/bin: scripts/mkinitramfs.sh)"

/* In a test: fail unless @path is an executable of the guest image. */
#define ASSERT_PROGRAM(path) \
	ASSERT_EQ(0, access(path, X_OK)) TH_LOG("%s: " GUEST_NOT_IN_IMAGE, path)

/* JIFL_TIME_SCALE from the environment: 1 when unset or invalid. */
static inline int guest_time_scale(void)
{
	const char *s = getenv("JIFL_TIME_SCALE");
	char *end;
	long v;

	if (!s || !*s)
		return 1;
	v = strtol(s, &end, 10);
	if (*end || v < 1)
		return 1;
	return v > GUEST_TIME_SCALE_MAX ? GUEST_TIME_SCALE_MAX : (int)v;
}

static inline void guest_scale_timeouts(void)
{
	struct __fixture_metadata *f;
	struct __test_metadata *t;
	int scale = guest_time_scale();

	if (scale == 1)
		return;
	for (f = __fixture_list; f; f = f->next)
		for (t = f->tests; t; t = t->next)
			t->timeout *= scale;
}

/* Is @name in the comma-separated @list? */
static inline int guest_test_listed(const char *list, const char *name)
{
	size_t n = strlen(name);
	const char *p;

	for (p = list; (p = strstr(p, name)); p += n)
		if ((p == list || p[-1] == ',') && (p[n] == ',' || !p[n]))
			return 1;
	return 0;
}

/*
 * Is this one of the project's test kernels (CONFIG_JIFL_TEST's debugfs
 * hooks and modules)? make check-debian's Debian kernel is not: tests of
 * what only a test kernel has skip there, and fail on a test kernel.
 */
static inline bool guest_test_kernel(void)
{
	return !access("/sys/kernel/debug/jifl", F_OK);
}

/* Keep only the tests JIFL_TEST_ONLY names, if it is set. */
static inline void guest_select_tests(void)
{
	const char *only = getenv("JIFL_TEST_ONLY");
	struct __test_metadata *t, *next, *first, *last;
	struct __fixture_metadata *f;

	if (!only || !*only)
		return;
	for (f = __fixture_list; f; f = f->next) {
		first = last = NULL;
		for (t = f->tests; t; t = next) {
			next = t->next;
			if (!guest_test_listed(only, t->name))
				continue;
			t->next = NULL;
			if (last)
				last->next = t;
			else
				first = t;
			t->prev = last;
			last = t;
		}
		if (first)
			first->prev = last;
		f->tests = first;
	}
}

static inline int guest_harness_run(int argc, char **argv)
{
	guest_select_tests();
	guest_scale_timeouts();
	return test_harness_run(argc, argv);
}

#undef TEST_HARNESS_MAIN
#define TEST_HARNESS_MAIN \
	static void __attribute__((constructor)) \
	__constructor_order_last(void) \
	{ \
		if (!__constructor_order) \
			__constructor_order = _CONSTRUCTOR_ORDER_BACKWARD; \
	} \
	int main(int argc, char **argv) \
	{ \
		return guest_harness_run(argc, argv); \
	}

#endif /* JIFL_GUEST_HARNESS_H */
