/* SPDX-License-Identifier: GPL-2.0 */
/* The raw-mode harness's input layout (fuzz_raw.c). */
#ifndef JIFL_FUZZ_RAW_H
#define JIFL_FUZZ_RAW_H

#define FUZZ_RAW_HEADER	6		/* family, model, stepping, flags, mem_len */
#define FUZZ_RAW_BASE	0x400000ull	/* where mem[] is loaded */

#endif /* JIFL_FUZZ_RAW_H */
