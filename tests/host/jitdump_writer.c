// SPDX-License-Identifier: GPL-2.0
/*
 * The jitdump writer against perf's specification
 * (tools/perf/Documentation/jitdump-specification.txt), read back here
 * by byte offsets, independently of the writer's structures.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "common/errcode.h"
#include "flowjit/jitdump_writer.h"

static uint32_t u32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

static uint64_t u64(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

static const struct {
	uint64_t addr, tsc;
	const char *name;
	size_t size;
} loads[] = {
	{ 0x7f0000001000, 1000, "jit-7f0000001000-v1", 4096 },
	{ 0x7f0000001000, 2000, "jit-7f0000001000-v2", 4096 + 15 },
	{ 0x7f0000002000, 2000, "x", 1 },
};

TEST(file_layout)
{
	char path[] = "/tmp/jifl-jitdump-XXXXXX";
	static uint8_t code[8192], buf[65536];
	struct jifl_jitdump *j;
	size_t n, off, i;
	FILE *f;
	int fd;

	for (i = 0; i < sizeof(code); i++)
		code[i] = i * 7;
	fd = mkstemp(path);
	ASSERT_LE(0, fd);
	close(fd);
	ASSERT_EQ(0, jifl_jitdump_open(&j, path, 4242, 500));
	for (i = 0; i < sizeof(loads) / sizeof(loads[0]); i++)
		ASSERT_EQ(0, jifl_jitdump_code_load(j, 4243, loads[i].addr, loads[i].name,
						    code + i, loads[i].size, loads[i].tsc));
	ASSERT_EQ(0, jifl_jitdump_close(j, 3000));
	f = fopen(path, "r");
	ASSERT_NE(NULL, f);
	n = fread(buf, 1, sizeof(buf), f);
	fclose(f);
	unlink(path);

	/* The header: magic "JiTD", version 1, its size, EM_X86_64, pid, time, flags. */
	ASSERT_LE(40, n);
	EXPECT_EQ(0x4A695444, u32(buf));
	EXPECT_EQ(1, u32(buf + 4));
	EXPECT_EQ(40, u32(buf + 8));
	EXPECT_EQ(62, u32(buf + 12));
	EXPECT_EQ(4242, u32(buf + 20));
	EXPECT_EQ(500, u64(buf + 24));
	EXPECT_EQ(1, u64(buf + 32));	/* JITDUMP_FLAGS_ARCH_TIMESTAMP: TSC times */

	/*
	 * JIT_CODE_LOAD: id 0, size, time, pid, tid, vma, code_addr, code_size,
	 * index, name, code.
	 */
	off = 40;
	for (i = 0; i < sizeof(loads) / sizeof(loads[0]); i++) {
		size_t name = strlen(loads[i].name) + 1;

		ASSERT_LE(off + 56, n);
		EXPECT_EQ(0, u32(buf + off));
		ASSERT_EQ(56 + name + loads[i].size, u32(buf + off + 4));
		EXPECT_EQ(loads[i].tsc, u64(buf + off + 8));
		EXPECT_EQ(4242, u32(buf + off + 16));
		EXPECT_EQ(4243, u32(buf + off + 20));
		EXPECT_EQ(loads[i].addr, u64(buf + off + 24));
		EXPECT_EQ(loads[i].addr, u64(buf + off + 32));
		EXPECT_EQ(loads[i].size, u64(buf + off + 40));
		EXPECT_EQ(i + 1, u64(buf + off + 48));
		EXPECT_STREQ(loads[i].name, (const char *)buf + off + 56);
		EXPECT_EQ(0, memcmp(code + i, buf + off + 56 + name, loads[i].size));
		off += 56 + name + loads[i].size;
	}
	/* JIT_CODE_CLOSE: the prefix alone, then the end of the file. */
	ASSERT_EQ(off + 16, n);
	EXPECT_EQ(3, u32(buf + off));
	EXPECT_EQ(16, u32(buf + off + 4));
	EXPECT_EQ(3000, u64(buf + off + 8));
}

TEST(cannot_create)
{
	struct jifl_jitdump *j = NULL;

	EXPECT_EQ(jifl_err_errno(ENOENT), jifl_jitdump_open(&j, "/nonexistent/jit-1.dump", 1, 0));
	EXPECT_EQ(NULL, j);
}

TEST_HARNESS_MAIN
