# SPDX-License-Identifier: GPL-2.0
#
# JIFL: top-level build. See README.md; "make help" lists the targets.

TOP       := $(abspath .)
B         := $(TOP)/build
KTREE     := $(B)/linux
KOUT      := $(B)/kernel
BZIMAGE   := $(KOUT)/arch/x86/boot/bzImage
UAPI      := $(KOUT)/usr/include
KSELFTEST := $(KTREE)/tools/testing/selftests
# The tools and host tests build from copies of the kernel headers they
# need (scripts/check-headers.sh keeps them equal to the series'), so no
# kernel tree is needed for them; the guest tests use the kernel's own.
VENDORED_UAPI      := $(TOP)/userspace/include/uapi
VENDORED_KSELFTEST := $(TOP)/tests/include
INITRD    := $(B)/initramfs.cpio.gz

CC        ?= gcc
CFLAGS    := -std=gnu11 -O2 -g -Wall -Wextra -Werror
# kselftest_harness.h is kernel code: it trips -Wextra's pedantry.
HARNESS_CFLAGS := $(CFLAGS) -DJIFL_TOP=\"$(TOP)\" -Wno-unused-parameter \
	-Wno-sign-compare -Wno-missing-field-initializers
HOST_TEST_CFLAGS  := $(HARNESS_CFLAGS) -I$(VENDORED_KSELFTEST) -I$(VENDORED_UAPI)
GUEST_TEST_CFLAGS := $(HARNESS_CFLAGS) -I$(KSELFTEST) -I$(UAPI)

HOST_TESTS   := $(patsubst tests/host/%.c,$(B)/tests/host/%,$(wildcard tests/host/*.c))
HOST_FIXTURES := $(patsubst tests/host/fixtures/%.c,$(B)/tests/fixtures/%,$(wildcard tests/host/fixtures/*.c))
GUEST_TESTS  := $(patsubst tests/guest/%.c,$(B)/tests/guest/%,$(wildcard tests/guest/*.c))

.PHONY: all help setup prepare kernel patches userspace userspace-san fuzzers fuzz tests host-tests initramfs \
	check check-host check-debug check-singlestep check-fuzz-syscalls series-check debian-check kernel-debian check-debian bindeb-pkg demo bench bench-apache bench-runtimes bench-debian kcov-compare guest-shell install uninstall deb clean distclean

all: kernel tests initramfs

help:
	@echo "make demo        build everything, boot the patched kernel, show it working"
	@echo "make check       all tests (host, then guest in QEMU); last line 'N passed, N failed'"
	@echo "make check-host  build the tools, run the host tests; no kernel tree needed (minutes)"
	@echo "make bench       benchmarks (ratios, side by side in one guest run)"
	@echo "make bench-apache  the Apache rows of make bench alone"
	@echo "make bench-runtimes  JIT runtimes plain and under flowjit record (make bench's rows)"
	@echo "make bench-debian    JIFL's bench on the Debian-config kernel beside the test kernel"
	@echo "make check-debug guest tests on a KASAN + lockdep kernel (slow)"
	@echo "make check-singlestep  call chains from interrupts at any instruction (QEMU -singlestep)"
	@echo "make check-fuzz-syscalls  trinity on the debug kernel, every system call in the cache (FUZZ_SECS)"
	@echo "make kcov-compare JIFL's cover tool against kcov, on a CONFIG_KCOV kernel"
	@echo "make fuzz        run the libFuzzer harnesses (FUZZ_TIME seconds each) and update their corpora"
	@echo "make series-check build the test kernel at every patch of patches/series, checkpatch --strict each,"
	@echo "                 then compare the vendored kernel headers with the series' (scripts/check-headers.sh)"
	@echo "make debian-check compile what the series touches with Debian's own amd64 config"
	@echo "make kernel-debian the whole kernel with Debian's amd64 config, guest modules only (resumable)"
	@echo "make check-debian guest tests on that kernel; last line 'N passed, N failed, N skipped'"
	@echo "make bindeb-pkg  that kernel as Debian packages, unpacked into an image and booted"
	@echo "make setup       install the Debian packages the project needs"
	@echo "make prepare     build/linux: Debian linux-source-6.1 + patches/series (git am)"
	@echo "make kernel      build the test kernel (KCONFIG=path for your own .config)"
	@echo "make patches     export build/linux commits above jifl-base into patches/"
	@echo "make initramfs   guest initramfs with busybox, tests and tools"
	@echo "make guest-shell boot the test kernel with a shell on the console"
	@echo "make install     install the tools, man pages, completions (PREFIX, DESTDIR)"
	@echo "make uninstall   remove what make install installed (same PREFIX, DESTDIR)"
	@echo "make deb         build/jifl-tools_VERSION_ARCH.deb, a Debian package of the tools"

setup:
	@scripts/setup.sh

prepare: setup
	@scripts/kernel-prepare.sh

kernel: prepare
	@scripts/kernel-build.sh

patches:
	@scripts/kernel-export.sh

userspace:
	@$(MAKE) -s -C userspace O=$(B)

userspace-san:
	@$(MAKE) -s -C userspace O=$(B) SAN=1

fuzzers: userspace
	@$(MAKE) -s -C userspace O=$(B) FUZZ=1 fuzzers

fuzz:
	@scripts/fuzz.sh

# PREFIX (/usr/local), DESTDIR, BINDIR, MANDIR, COMPLETIONDIR as usual.
install: userspace
	@$(MAKE) --no-print-directory -C userspace O=$(B) install

uninstall:
	@$(MAKE) --no-print-directory -C userspace O=$(B) uninstall

deb: userspace
	@scripts/make-deb.sh $(B)

# The guest tests build against the patched tree's headers and harness.
$(UAPI):
	@$(MAKE) -s kernel

# Host tests may use the tools' library (libjifl.a, built by "userspace").
LIBJIFL := $(B)/userspace/libjifl.a

VENDORED_HEADERS := $(wildcard tests/include/*.h userspace/include/uapi/linux/*.h)

$(B)/tests/host/%: tests/host/%.c $(wildcard tests/host/*.h) $(wildcard userspace/lib/*/*.[ch]) \
		$(VENDORED_HEADERS) | userspace
	@mkdir -p $(@D)
	$(CC) $(HOST_TEST_CFLAGS) -Iuserspace/lib -o $@ $< $(LIBJIFL) -lipt -lZydis -lelf -lpthread

$(B)/tests/fixtures/%: tests/host/fixtures/%.c $(VENDORED_HEADERS)
	@mkdir -p $(@D)
	$(CC) $(HOST_TEST_CFLAGS) -static -o $@ $<

# the series' own UAPI headers: a changed one rebuilds the tests
SERIES_UAPI := $(wildcard $(UAPI)/linux/flowjit.h $(UAPI)/linux/jifl*.h)

$(B)/tests/guest/%: tests/guest/%.c $(wildcard tests/guest/*.h) $(SERIES_UAPI) | $(UAPI)
	@mkdir -p $(@D)
	$(CC) $(GUEST_TEST_CFLAGS) -static -o $@ $< -lpthread

# Programs that tests run or trace (tests/progs/progs.mk adds to TEST_PROGS).
TEST_PROGS :=
-include tests/progs/progs.mk

# What the host tests run, built without a kernel tree.
host-tests: userspace $(TEST_PROGS) $(HOST_TESTS) $(HOST_FIXTURES)

tests: host-tests $(GUEST_TESTS)

$(INITRD): userspace $(GUEST_TESTS) scripts/mkinitramfs.sh scripts/guest/init \
		scripts/guest/run-tests tests/guest/programs
	@scripts/mkinitramfs.sh $@ $(B)/tests/guest $(B)/bin

initramfs: $(INITRD)

check:
	@scripts/check.sh

check-host:
	@scripts/check-host.sh

check-debug:
	@scripts/check-debug.sh

check-singlestep:
	@scripts/check-singlestep.sh

check-fuzz-syscalls:
	@scripts/check-fuzz-syscalls.sh

series-check: prepare
	@scripts/series-check.sh

debian-check: prepare
	@scripts/debian-check.sh

kernel-debian: prepare
	@scripts/kernel-debian.sh

check-debian:
	@scripts/check-debian.sh

bindeb-pkg: kernel-debian userspace
	@scripts/debian-deb.sh

demo:
	@scripts/demo.sh

bench:
	@scripts/bench.sh

bench-apache:
	@scripts/bench.sh apache

bench-runtimes:
	@scripts/bench.sh runtimes

bench-debian:
	@scripts/bench-debian.sh

kcov-compare:
	@scripts/kcov-compare.sh

guest-shell: kernel initramfs
	scripts/qemu-run.sh --shell

clean:
	rm -rf $(B)/tests $(B)/bin $(INITRD) $(B)/*.log $(B)/deb $(B)/jifl-tools_*.deb

distclean:
	rm -rf $(B)
