// SPDX-License-Identifier: GPL-2.0
/*
 * The vDSO, end to end. jifl-swtrace keeps it as "perf record" does: its
 * build ID in the perf.data (BUILD_ID feature, "[vdso]"), its image in
 * perf's build-id cache. Then a program that calls clock_gettime() and
 * gettimeofday() in a loop, dynamically and statically linked, decodes
 * to exactly the ground truth with no error, with jifl-decode (both
 * decoders) and with stock "perf script", both reading the vDSO from
 * the cache. Each test first checks that the truth really runs vDSO
 * code: a C library that made system calls instead would leave nothing
 * to test.
 *
 * The cache of every test is its own directory (--buildid-dir), never
 * ~/.debug; JIFL_DECODE in the environment names another jifl-decode.
 */
#define _GNU_SOURCE	/* memmem */
#include <fcntl.h>
#include <gelf.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "cmd.h"
#include "swtrace_truth.h"
#include "tools.h"
#include "tmpdir.h"

#define ROUNDS	"20"

FIXTURE(vdso) {
	TMPDIR_TRACE_MEMBERS;
	char cache[128];
	char out[16384];
	char hex[41];			/* the vDSO's build ID, as perf lists it */
	uint64_t lo, hi;		/* where the vDSO was mapped */
};

FIXTURE_SETUP(vdso)
{
	TMPDIR_TRACE_SETUP("vdso");
	snprintf(self->cache, sizeof(self->cache), "%s/debug", self->dir);
}

FIXTURE_TEARDOWN(vdso)
{
	TMPDIR_TRACE_TEARDOWN();
}

/* Record PROGS @prog with @opts; the exit status, output in self->out. */
static int record(FIXTURE_DATA(vdso) *self, const char *opts, const char *prog)
{
	return cmd_run(self->out, sizeof(self->out), "%s -q %s -o %s --truth %s -- " PROGS "%s "
		       ROUNDS, SWTRACE, opts, self->data, self->truth, prog);
}

/* "perf buildid-list": the build ID of "[vdso]" in self->hex. */
static void perf_vdso_id(struct __test_metadata *_metadata, FIXTURE_DATA(vdso) *self)
{
	ASSERT_EQ(0, cmd_run(self->out, sizeof(self->out),
			     "perf buildid-list -i %s | awk '$2 == \"[vdso]\" { print $1 }'",
			     self->data));
	self->out[strcspn(self->out, "\n")] = '\0';
	ASSERT_EQ(40, strlen(self->out)) TH_LOG("no build ID of [vdso] in the perf.data");
	strcpy(self->hex, self->out);
}

/* The vDSO's mapping, as "perf script --show-mmap-events" lists it. */
static void vdso_range(struct __test_metadata *_metadata, FIXTURE_DATA(vdso) *self)
{
	unsigned long long start, len;
	const char *p;

	ASSERT_EQ(0, cmd_run(self->out, sizeof(self->out),
			     "perf script -i %s --show-mmap-events --itrace= | grep 'MMAP2.*\\[vdso\\]'",
			     self->data));
	p = strstr(self->out, "[0x");
	ASSERT_NE(NULL, p) TH_LOG("%s", self->out);
	ASSERT_EQ(2, sscanf(p, "[0x%llx(0x%llx)", &start, &len)) TH_LOG("%s", self->out);
	self->lo = start;
	self->hi = start + len;
}

/* The truth runs vDSO code; fail loudly where it does not. */
static void truth_in_vdso(struct __test_metadata *_metadata, FIXTURE_DATA(vdso) *self)
{
	size_t i, n = 0;

	ASSERT_EQ(0, truth_read(self->truth, &self->want));
	ASSERT_GT(self->want.n, 1000);
	qsort(self->want.v, self->want.n, sizeof(*self->want.v), step_cmp);
	vdso_range(_metadata, self);
	for (i = 0; i < self->want.n; i++)
		n += self->want.v[i].ip >= self->lo && self->want.v[i].ip < self->hi;
	TH_LOG("%zu of %zu instructions in the vDSO", n, self->want.n);
	/* At least a few instructions for each of 3 calls a round. */
	ASSERT_GE(n, 3 * 20 * 5) TH_LOG("the program ran (almost) no vDSO code: the C library "
					 "made system calls instead; nothing is tested");
}

/* @cmd's lines "TID IP" in self->got, sorted by thread; lines with @mark are errors. */
static int read_sorted(FIXTURE_DATA(vdso) *self, const char *cmd, int tid_col,
		       const char *mark, long *errors)
{
	int st;

	self->got.n = 0;
	st = read_ips(cmd, tid_col, mark, &self->got, errors);
	qsort(self->got.v, self->got.n, sizeof(*self->got.v), step_cmp);
	return st;
}

/* jifl-decode with @opts: the truth, no error, exit 0 (no warning either). */
static void decode_exact(struct __test_metadata *_metadata, FIXTURE_DATA(vdso) *self,
			 const char *opts)
{
	char cmd[1024];
	long errors;
	size_t d, i;

	for (d = 0; d < NR_DECODERS; d++) {
		snprintf(cmd, sizeof(cmd), "%s %s -i %s --insn --decoder %s", decoder(), opts,
			 self->data, decoders[d]);
		EXPECT_EQ(0, read_sorted(self, cmd, 1, " error: ", &errors)) TH_LOG("%s", cmd);
		EXPECT_EQ(0, errors) TH_LOG("%s", cmd);
		EXPECT_EQ(self->want.n, self->got.n) TH_LOG("%s", cmd);
		i = ipseq_first_diff(&self->want, &self->got);
		ASSERT_EQ(self->want.n, i) TH_LOG("%s: first difference at %zu", cmd, i);
	}
	TH_LOG("jifl-decode: %zu instructions, %ld errors", self->got.n, errors);
}

/* Stock perf script, with the test's cache: the truth, no error. */
static void perf_exact(struct __test_metadata *_metadata, FIXTURE_DATA(vdso) *self)
{
	char cmd[512];
	long errors;
	size_t i;

	snprintf(cmd, sizeof(cmd), "perf --buildid-dir %s script -i %s --itrace=i1ie -F tid,ip 2>&1",
		 self->cache, self->data);
	ASSERT_EQ(0, read_sorted(self, cmd, 0, "instruction trace error", &errors));
	EXPECT_EQ(0, errors);
	EXPECT_EQ(self->want.n, self->got.n);
	i = ipseq_first_diff(&self->want, &self->got);
	ASSERT_EQ(self->want.n, i) TH_LOG("first difference at %zu", i);
	TH_LOG("perf script: %zu instructions, %ld errors", self->got.n, errors);
}

/* A whole file, in a buffer the caller frees; its size in *@size. */
static uint8_t *slurp(const char *path, size_t *size)
{
	struct stat st;
	uint8_t *buf;
	int fd = open(path, O_RDONLY);

	if (fd < 0 || fstat(fd, &st) || !(buf = malloc(st.st_size + 1)) ||
	    read(fd, buf, st.st_size) != st.st_size) {
		if (fd >= 0)
			close(fd);
		return NULL;
	}
	close(fd);
	*size = st.st_size;
	return buf;
}

/*
 * The cache holds the image as perf lays it out: DIR/[vdso]/ID/vdso and
 * the link DIR/.build-id/I/D -> ../../[vdso]/ID. The image is this
 * process's own vDSO (the same kernel maps the same one).
 */
static void cache_as_perf(struct __test_metadata *_metadata, FIXTURE_DATA(vdso) *self)
{
	char path[512], link[256], want[128];
	const uint8_t *own = (const uint8_t *)getauxval(AT_SYSINFO_EHDR);
	uint8_t *image;
	size_t size;
	ssize_t n;

	snprintf(path, sizeof(path), "%s/.build-id/%.2s/%s", self->cache, self->hex, self->hex + 2);
	n = readlink(path, link, sizeof(link) - 1);
	ASSERT_LT(0, n) TH_LOG("no link %s", path);
	link[n] = '\0';
	snprintf(want, sizeof(want), "../../[vdso]/%s", self->hex);
	EXPECT_STREQ(want, link);
	snprintf(path, sizeof(path), "%s/[vdso]/%s/vdso", self->cache, self->hex);
	image = slurp(path, &size);
	ASSERT_NE(NULL, image) TH_LOG("no %s", path);
	ASSERT_NE(NULL, own);
	EXPECT_EQ(0, memcmp(image, own, size)) TH_LOG("%s is not this system's vDSO", path);
	free(image);
}

static void check_prog(struct __test_metadata *_metadata, FIXTURE_DATA(vdso) *self,
		       const char *prog)
{
	char opts[256];

	snprintf(opts, sizeof(opts), "--buildid-dir %s", self->cache);
	ASSERT_EQ(0, record(self, opts, prog)) TH_LOG("%s", self->out);
	truth_in_vdso(_metadata, self);
	perf_vdso_id(_metadata, self);
	cache_as_perf(_metadata, self);
	decode_exact(_metadata, self, opts);
	perf_exact(_metadata, self);
}

TEST_F(vdso, dynamic) { check_prog(_metadata, self, "swt_vdso"); }
TEST_F(vdso, static) { check_prog(_metadata, self, "swt_vdso-static"); }

/* The vDSO's functions are named in the listing, as perf names them. */
TEST_F(vdso, symbols)
{
	char opts[256];

	snprintf(opts, sizeof(opts), "--buildid-dir %s", self->cache);
	ASSERT_EQ(0, record(self, opts, "swt_vdso")) TH_LOG("%s", self->out);
	ASSERT_EQ(0, cmd_run(self->out, sizeof(self->out),
			     "%s %s -i %s --calls | grep -o '\\[vdso\\]\\|[a-z_]*gettime[a-z_]*' | sort -u",
			     decoder(), opts, self->data));
	EXPECT_NE(NULL, strstr(self->out, "clock_gettime")) TH_LOG("%s", self->out);
	EXPECT_NE(NULL, strstr(self->out, "gettimeofday")) TH_LOG("%s", self->out);
	ASSERT_EQ(0, cmd_run(self->out, sizeof(self->out),
			     "%s %s -i %s -F ip,sym,dso | grep -c 'gettime.*\\[vdso\\]'",
			     decoder(), opts, self->data));
	EXPECT_LT(100, atoi(self->out));
}

/*
 * Where the cache has it, the cache's image is the one decoded: with its
 * code overwritten by int3, the decode is not the truth any more.
 */
TEST_F(vdso, cached_image_is_decoded)
{
	char opts[256], path[512];
	GElf_Shdr sh;
	Elf_Scn *scn = NULL;
	int fd, patched = 0;
	long errors;
	Elf *elf;

	snprintf(opts, sizeof(opts), "--buildid-dir %s", self->cache);
	ASSERT_EQ(0, record(self, opts, "swt_vdso")) TH_LOG("%s", self->out);
	truth_in_vdso(_metadata, self);
	perf_vdso_id(_metadata, self);
	snprintf(path, sizeof(path), "%s/[vdso]/%s/vdso", self->cache, self->hex);
	elf_version(EV_CURRENT);
	fd = open(path, O_RDWR);
	ASSERT_LE(0, fd);
	elf = elf_begin(fd, ELF_C_READ, NULL);
	ASSERT_NE(NULL, elf);
	while ((scn = elf_nextscn(elf, scn)))
		if (gelf_getshdr(scn, &sh) && sh.sh_type == SHT_PROGBITS &&
		    (sh.sh_flags & SHF_EXECINSTR)) {
			uint8_t *cc = malloc(sh.sh_size);

			ASSERT_NE(NULL, cc);
			memset(cc, 0xcc, sh.sh_size);
			EXPECT_EQ(sh.sh_size, pwrite(fd, cc, sh.sh_size, sh.sh_offset));
			free(cc);
			patched++;
		}
	elf_end(elf);
	close(fd);
	ASSERT_LT(0, patched);
	snprintf(path, sizeof(path), "%s %s -i %s --insn", decoder(), opts, self->data);
	read_sorted(self, path, 1, " error: ", &errors);
	EXPECT_TRUE(errors || ipseq_first_diff(&self->want, &self->got) < self->want.n)
		TH_LOG("the decode ignored the cached image");

	/* PERF_BUILDID_DIR names the same cache... */
	snprintf(path, sizeof(path), "env PERF_BUILDID_DIR=%s %s -i %s --insn", self->cache,
		 decoder(), self->data);
	read_sorted(self, path, 1, " error: ", &errors);
	EXPECT_TRUE(errors || ipseq_first_diff(&self->want, &self->got) < self->want.n)
		TH_LOG("the decode ignored PERF_BUILDID_DIR");
	/* ...but --buildid-dir wins: none there, this system's vDSO stands in. */
	snprintf(path, sizeof(path), "--buildid-dir %s/empty", self->dir);
	setenv("PERF_BUILDID_DIR", self->cache, 1);
	decode_exact(_metadata, self, path);
	unsetenv("PERF_BUILDID_DIR");
}

/*
 * Without the cache, this system's own vDSO has the recorded build ID
 * and stands in for it; perf script, which needs the cache, fails there.
 */
TEST_F(vdso, own_vdso_without_cache)
{
	char opts[256], empty[256], cmd[512];
	long errors;

	snprintf(opts, sizeof(opts), "--buildid-dir %s", self->cache);
	ASSERT_EQ(0, record(self, opts, "swt_vdso-static")) TH_LOG("%s", self->out);
	truth_in_vdso(_metadata, self);
	snprintf(empty, sizeof(empty), "--buildid-dir %s/empty", self->dir);
	decode_exact(_metadata, self, empty);
	snprintf(cmd, sizeof(cmd), "perf %s script -i %s --itrace=i1ie -F tid,ip 2>&1", empty,
		 self->data);
	read_sorted(self, cmd, 0, "instruction trace error", &errors);
	EXPECT_LT(0, errors) TH_LOG("perf script decoded the vDSO without the cache");
}

/*
 * A vDSO that is neither in the cache nor this system's (its build ID
 * changed in the file): a warning that says so, and its code is missing.
 */
TEST_F(vdso, unknown_vdso)
{
	char opts[256], cmd[512];
	uint8_t *file, id[20], *at;
	size_t size, i;
	long errors;
	FILE *f;

	snprintf(opts, sizeof(opts), "--buildid-dir %s", self->cache);
	ASSERT_EQ(0, record(self, opts, "swt_vdso")) TH_LOG("%s", self->out);
	truth_in_vdso(_metadata, self);
	perf_vdso_id(_metadata, self);
	for (i = 0; i < 20; i++)
		ASSERT_EQ(1, sscanf(self->hex + 2 * i, "%2hhx", &id[i]));
	file = slurp(self->data, &size);
	ASSERT_NE(NULL, file);
	at = memmem(file, size, id, sizeof(id));
	ASSERT_NE(NULL, at);
	at[0] ^= 0xff;
	f = fopen(self->data, "w");
	ASSERT_NE(NULL, f);
	EXPECT_EQ(size, fwrite(file, 1, size, f));
	EXPECT_EQ(0, fclose(f));
	free(file);

	EXPECT_EQ(1, cmd_run(self->out, sizeof(self->out), "%s %s -i %s --stats", decoder(),
			     opts, self->data));
	EXPECT_NE(NULL, strstr(self->out, "warning: the vDSO (build ID ")) TH_LOG("%s", self->out);
	EXPECT_NE(NULL, strstr(self->out, "is not in the build-id cache")) TH_LOG("%s", self->out);
	EXPECT_NE(NULL, strstr(self->out, "this system's is another")) TH_LOG("%s", self->out);
	snprintf(cmd, sizeof(cmd), "%s %s -i %s --insn 2>&1", decoder(), opts, self->data);
	read_sorted(self, cmd, 1, " error: ", &errors);
	EXPECT_LT(0, errors);
}

/*
 * A file that names no build ID for the vDSO (perf record -B): this
 * system's vDSO stands in, as in perf script, with a warning.
 */
TEST_F(vdso, no_build_id_recorded)
{
	char opts[256], cmd[512];
	uint8_t *file, *at, *last = NULL;
	size_t size;
	long errors;
	FILE *f;

	snprintf(opts, sizeof(opts), "--buildid-dir %s", self->cache);
	ASSERT_EQ(0, record(self, opts, "swt_vdso-static")) TH_LOG("%s", self->out);
	truth_in_vdso(_metadata, self);
	/* The BUILD_ID entry comes last, after the MMAP2 record's name. */
	file = slurp(self->data, &size);
	ASSERT_NE(NULL, file);
	for (at = file; (at = memmem(at, size - (at - file), "[vdso]", 7)); at++)
		last = at;
	ASSERT_NE(NULL, last);
	last[4] = 'X';
	f = fopen(self->data, "w");
	ASSERT_NE(NULL, f);
	EXPECT_EQ(size, fwrite(file, 1, size, f));
	EXPECT_EQ(0, fclose(f));
	free(file);
	ASSERT_NE(0, cmd_run(self->out, sizeof(self->out), "perf buildid-list -i %s | "
			     "grep -F '[vdso]'", self->data));

	EXPECT_EQ(1, cmd_run(self->out, sizeof(self->out), "%s %s -i %s --stats", decoder(),
			     opts, self->data));
	EXPECT_NE(NULL, strstr(self->out, "warning: no build ID of the vDSO in the perf.data: "
			       "decoding its code with this system's")) TH_LOG("%s", self->out);
	snprintf(cmd, sizeof(cmd), "%s %s -i %s --insn", decoder(), opts, self->data);
	EXPECT_EQ(1, read_sorted(self, cmd, 1, " error: ", &errors));
	EXPECT_EQ(0, errors);
	EXPECT_EQ(self->want.n, self->got.n);
	EXPECT_EQ(self->want.n, ipseq_first_diff(&self->want, &self->got));
}

/* PERF_BUILDID_DIR stands for --buildid-dir (jifl-decode: cached_image_is_decoded). */
TEST_F(vdso, buildid_dir_environment)
{
	ASSERT_EQ(0, cmd_run(self->out, sizeof(self->out), "env PERF_BUILDID_DIR=%s %s -q -o %s "
			     "--truth %s -- " PROGS "swt_vdso " ROUNDS, self->cache, SWTRACE,
			     self->data, self->truth))
		TH_LOG("%s", self->out);
	perf_vdso_id(_metadata, self);
	cache_as_perf(_metadata, self);
}

/* -N keeps the cache as it is; the perf.data still names the build ID. */
TEST_F(vdso, no_buildid_cache)
{
	char opts[256];

	snprintf(opts, sizeof(opts), "-N --buildid-dir %s", self->cache);
	ASSERT_EQ(0, record(self, opts, "swt_vdso")) TH_LOG("%s", self->out);
	perf_vdso_id(_metadata, self);
	EXPECT_NE(0, access(self->cache, F_OK));
}

/* A cache that cannot be written: a warning that names it; the trace is kept. */
TEST_F(vdso, unwritable_cache)
{
	char opts[256];

	snprintf(opts, sizeof(opts), "--buildid-dir %s/cache", self->truth);
	ASSERT_EQ(0, record(self, opts, "swt_vdso")) TH_LOG("%s", self->out);
	EXPECT_NE(NULL, strstr(self->out, "warning: the vDSO is not in the build-id cache"))
		TH_LOG("%s", self->out);
	EXPECT_NE(NULL, strstr(self->out, "Not a directory")) TH_LOG("%s", self->out);
	truth_in_vdso(_metadata, self);
}

TEST_HARNESS_MAIN
