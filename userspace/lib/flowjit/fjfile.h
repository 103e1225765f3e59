/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The FlowJIT data file (flowjit.data): a header, then the kernel's
 * struct flowjit_event records copied verbatim (each followed by its page
 * when FLOWJIT_EVF_PAYLOAD is set), then an end record. All fields are
 * little-endian. See Documentation/flowjit-file-format.rst.
 */
#ifndef JIFL_FJFILE_H
#define JIFL_FJFILE_H

#include <stddef.h>
#include <stdint.h>
#include <linux/flowjit.h>

#define JIFL_FJ_MAGIC		"JIFLFJ\r\n"
#define JIFL_FJ_VERSION		1

/* A process named by -p, not started by the recorder (header flags). */
#define JIFL_FJ_F_ATTACHED	0x40000000

/* Record type of the file's last record; never sent by the kernel. */
#define JIFL_FJ_END		0x8000

/* The largest header a reader accepts (the command line lives in it). */
#define JIFL_FJ_HEADER_MAX	(1 << 20)

struct jifl_fj_header {
	char magic[8];		/* JIFL_FJ_MAGIC */
	uint32_t version;	/* JIFL_FJ_VERSION */
	uint32_t header_size;	/* bytes of header, command line included; 8-aligned */
	uint32_t record_size;	/* sizeof(struct flowjit_event) */
	uint32_t page_size;	/* FLOWJIT_PAGE_SIZE */
	uint64_t tsc_hz;	/* TSC ticks per second, 0 if unknown */
	uint64_t start_ns;	/* CLOCK_MONOTONIC when recording began */
	uint32_t pid;		/* the recorded process */
	uint32_t flags;		/* FLOWJIT_F_* tracking flags | JIFL_FJ_F_* */
	uint32_t cmdline_len;	/* bytes of command line after the header */
	uint32_t reserved;	/* zero */
	/* command line: arguments each ended by '\0', then zeros to 8 bytes */
};

/* What a header says, in memory. */
struct jifl_fj_info {
	uint32_t version;
	uint64_t tsc_hz;
	uint64_t start_ns;
	uint32_t pid;
	uint32_t flags;
	const char *cmdline;	/* arguments each ended by '\0' */
	size_t cmdline_len;
};

/*
 * Check that @ev is a record the format knows: a known type, and a size
 * that matches its payload flag. Returns 0 or -jifl_err_format.
 */
int jifl_fjfile_check_record(const struct flowjit_event *ev);

/* "EXEC", "WRITE", ...; "END" for the end record; "?" otherwise. */
const char *jifl_fjfile_type_name(unsigned int type);

/* Fold @len bytes (a multiple of 8) into the running checksum @sum. */
uint64_t jifl_fjfile_checksum(uint64_t sum, const void *buf, size_t len);

#define JIFL_FJ_CHECKSUM_INIT	0xcbf29ce484222325ull

#endif /* JIFL_FJFILE_H */
