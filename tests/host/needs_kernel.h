/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The few host tests that boot the test kernel or use the prepared kernel
 * tree skip, saying so, where there is none (make check-host on a machine
 * without a kernel tree); make check builds both before the host tests,
 * so there they run.
 */
#ifndef JIFL_TESTS_NEEDS_KERNEL_H
#define JIFL_TESTS_NEEDS_KERNEL_H

#include <unistd.h>

#ifndef JIFL_TOP
#error "JIFL_TOP must name the project's top directory"
#endif

/* What scripts/qemu-run.sh boots by default, and the prepared tree. */
#define TEST_BZIMAGE	JIFL_TOP "/build/kernel/arch/x86/boot/bzImage"
#define TEST_INITRD	JIFL_TOP "/build/initramfs.cpio.gz"
#define KERNEL_TREE	JIFL_TOP "/build/linux"

/* In a test: skip it unless the test kernel and the initramfs are built. */
#define NEEDS_GUEST()							\
	do {								\
		if (access(TEST_BZIMAGE, R_OK) || access(TEST_INITRD, R_OK)) \
			SKIP(return, "needs the test kernel and initramfs "	\
			     "(make kernel initramfs; make check builds them)"); \
	} while (0)

/* In a test: skip it unless the kernel tree is prepared (a git tree). */
#define NEEDS_KERNEL_TREE()						\
	do {								\
		if (access(KERNEL_TREE "/.git", F_OK))			\
			SKIP(return, "needs the prepared kernel tree "	\
			     "build/linux (make prepare; make check prepares it)"); \
	} while (0)

#endif /* JIFL_TESTS_NEEDS_KERNEL_H */
