/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Writer of perf's jitdump files (tools/perf/Documentation/
 * jitdump-specification.txt): the code a JIT generated, for "perf
 * inject --jit", which turns each code load into an ELF file and an
 * MMAP2 record at the load's time. The file of process PID is named
 * jit-PID.dump; perf inject finds it through an MMAP record of that
 * name in the perf.data. Timestamps are TSC values
 * (JITDUMP_FLAGS_ARCH_TIMESTAMP): perf converts them with the
 * perf.data's TIME_CONV record, as it converts Intel PT's.
 */
#ifndef JIFL_JITDUMP_WRITER_H
#define JIFL_JITDUMP_WRITER_H

#include <stddef.h>
#include <stdint.h>

#define JIFL_JITDUMP_MAGIC		0x4A695444	/* "JiTD" */
#define JIFL_JITDUMP_VERSION		1
#define JIFL_JITDUMP_ARCH_TIMESTAMP	(1ULL << 0)

enum jifl_jitdump_record {
	JIFL_JITDUMP_CODE_LOAD	= 0,
	JIFL_JITDUMP_CODE_CLOSE	= 3,
};

/* The file header. */
struct jifl_jitdump_header {
	uint32_t magic;
	uint32_t version;
	uint32_t total_size;	/* of this header */
	uint32_t elf_mach;	/* EM_X86_64 */
	uint32_t pad1;
	uint32_t pid;
	uint64_t timestamp;	/* when the file was made */
	uint64_t flags;
};

/* What every record starts with. */
struct jifl_jitdump_prefix {
	uint32_t id;		/* enum jifl_jitdump_record */
	uint32_t total_size;	/* of the record, all of it */
	uint64_t timestamp;
};

/* JIT_CODE_LOAD: followed by the name ('\0'-ended), then the code. */
struct jifl_jitdump_code_load {
	struct jifl_jitdump_prefix p;
	uint32_t pid;
	uint32_t tid;
	uint64_t vma;
	uint64_t code_addr;
	uint64_t code_size;
	uint64_t code_index;	/* perf names the ELF file jitted-PID-INDEX.so */
};

struct jifl_jitdump;

/*
 * Create @path (truncating it) for process @pid, made at TSC @tsc.
 * Returns 0 and the writer in @jp, or a system error (errcode.h),
 * -jifl_err_nomem.
 */
int jifl_jitdump_open(struct jifl_jitdump **jp, const char *path, uint32_t pid,
		      uint64_t tsc);

/*
 * A code load: @size bytes of @code at @addr, by thread @tid, named
 * @name, that perf is to map from TSC @tsc on. Code indexes count from
 * 1. Returns 0 or a system error.
 */
int jifl_jitdump_code_load(struct jifl_jitdump *j, uint32_t tid, uint64_t addr,
			   const char *name, const void *code, size_t size, uint64_t tsc);

/*
 * Write JIT_CODE_CLOSE at TSC @tsc, close the file and free @j. Returns 0
 * or a system error; @j is freed either way.
 */
int jifl_jitdump_close(struct jifl_jitdump *j, uint64_t tsc);

#endif /* JIFL_JITDUMP_WRITER_H */
