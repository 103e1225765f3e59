# SPDX-License-Identifier: GPL-2.0
#
# Programs that host tests trace (included by the top-level Makefile).
# Each swt_* program is built dynamic and static, both without PIE so
# that tests can find symbols at their link addresses.

SWT_PROGS := swt_flow swt_sys swt_sig swt_crash swt_thread swt_jit swt_spin swt_fault swt_vdso swt_sched swt_wxjit swt_dualjit \
	swt_movss
PROGS_CFLAGS := -std=gnu11 -O2 -g -Wall -Wextra -Werror -no-pie

TEST_PROGS += $(foreach p,$(SWT_PROGS),$(B)/tests/progs/$(p) $(B)/tests/progs/$(p)-static)

$(B)/tests/progs/swt_%-static: tests/progs/swt_%.c
	@mkdir -p $(@D)
	$(CC) $(PROGS_CFLAGS) -static -o $@ $< -lpthread

$(B)/tests/progs/swt_%: tests/progs/swt_%.c
	@mkdir -p $(@D)
	$(CC) $(PROGS_CFLAGS) -o $@ $< -lpthread

# FlowJIT in user space for host tests (see the file): a preloaded library.
TEST_PROGS += $(B)/tests/progs/fj_preload.so

$(B)/tests/progs/fj_preload.so: tests/progs/fj_preload.c $(VENDORED_UAPI)/linux/flowjit.h
	@mkdir -p $(@D)
	$(CC) -std=gnu11 -O2 -g -Wall -Wextra -Werror -fPIC -shared -I$(VENDORED_UAPI) -o $@ $<
