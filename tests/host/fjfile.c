// SPDX-License-Identifier: GPL-2.0
/*
 * The FlowJIT data file reader and writer (userspace/lib/flowjit/fj*.c): a file
 * written with known records reads back exactly; truncated, corrupted
 * and foreign files are refused with the right error, table-driven.
 * The library sources are compiled in: host tests link no library.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "common/errcode.h"
#include "flowjit/fjfile.h"
#include "flowjit/fjreader.h"
#include "flowjit/fjwriter.h"

#define NREC 6
#define CMDLINE "luajit\0-e\0print(1)\0"

struct rec {
	struct flowjit_event ev;
	unsigned char page[FLOWJIT_PAGE_SIZE];
};

static struct rec recs[NREC];

static void make_records(void)
{
	static const int types[NREC] = {
		FLOWJIT_EV_TRACK, FLOWJIT_EV_EXEC, FLOWJIT_EV_WRITE,
		FLOWJIT_EV_EXEC, FLOWJIT_EV_LOST, FLOWJIT_EV_UNTRACK,
	};
	int i;

	memset(recs, 0, sizeof(recs));
	for (i = 0; i < NREC; i++) {
		struct flowjit_event *ev = &recs[i].ev;

		ev->type = types[i];
		ev->size = sizeof(*ev);
		ev->seq = 10 + i;
		ev->tsc = 1000000 + 1000 * i;
		ev->time_ns = 5000000 + 400 * i;
		ev->pid = 42;
		ev->tid = 42;
		ev->addr = 0x7f0000001000;
		ev->ip = 0x7f0000001010;
		ev->aux = types[i] == FLOWJIT_EV_LOST ? 3 : 0;
		if (types[i] == FLOWJIT_EV_EXEC) {
			ev->flags = FLOWJIT_EVF_PAYLOAD;
			ev->size += FLOWJIT_PAGE_SIZE;
			memset(recs[i].page, 0x90 + i, FLOWJIT_PAGE_SIZE);
		}
	}
}

static void write_file(struct __test_metadata *_metadata, const char *path)
{
	struct jifl_fj_info info = {
		.tsc_hz = 2400000000ull, .start_ns = 4999999, .pid = 42,
		.flags = FLOWJIT_F_INHERIT, .cmdline = CMDLINE,
		.cmdline_len = sizeof(CMDLINE) - 1,
	};
	struct jifl_fjwriter *w;
	int i;

	make_records();
	ASSERT_EQ(0, jifl_fjwriter_open(&w, path, &info));
	for (i = 0; i < NREC; i++)
		ASSERT_EQ(0, jifl_fjwriter_add(w, &recs[i].ev));
	ASSERT_EQ(NREC, jifl_fjwriter_count(w));
	ASSERT_EQ(0, jifl_fjwriter_close(w));
}

/* Read @path to the end; the last result of next() (0 or an error). */
static int read_all(const char *path, int *records)
{
	struct jifl_fjreader *r;
	struct flowjit_event ev;
	const void *page;
	int ret;

	*records = 0;
	ret = jifl_fjreader_open(&r, path);
	if (ret)
		return ret;
	while ((ret = jifl_fjreader_next(r, &ev, &page)) > 0)
		(*records)++;
	/* it stays at its end or error */
	if (jifl_fjreader_next(r, &ev, &page) != ret)
		ret = -jifl_err_internal;
	jifl_fjreader_close(r);
	return ret;
}

static char path[64];

FIXTURE(fjfile) {
	long size;
};

FIXTURE_SETUP(fjfile)
{
	FILE *f;

	snprintf(path, sizeof(path), "/tmp/fjfile-test.%d", getpid());
	write_file(_metadata, path);
	f = fopen(path, "r");
	ASSERT_NE(NULL, f);
	fseek(f, 0, SEEK_END);
	self->size = ftell(f);
	fclose(f);
}

FIXTURE_TEARDOWN(fjfile)
{
	unlink(path);
}

TEST_F(fjfile, reads_back_what_was_written)
{
	const struct jifl_fj_info *info;
	struct jifl_fjreader *r;
	struct flowjit_event ev;
	const void *page;
	int i;

	/* header + command line padded to 8 + records + end */
	EXPECT_EQ(56 + 24 + NREC * 80 + 2 * 4096 + 80, self->size);
	ASSERT_EQ(0, jifl_fjreader_open(&r, path));
	info = jifl_fjreader_info(r);
	EXPECT_EQ(1, info->version);
	EXPECT_EQ(2400000000ull, info->tsc_hz);
	EXPECT_EQ(4999999, info->start_ns);
	EXPECT_EQ(42, info->pid);
	EXPECT_EQ(FLOWJIT_F_INHERIT, info->flags);
	ASSERT_EQ(sizeof(CMDLINE) - 1, info->cmdline_len);
	EXPECT_EQ(0, memcmp(CMDLINE, info->cmdline, info->cmdline_len));
	for (i = 0; i < NREC; i++) {
		ASSERT_EQ(1, jifl_fjreader_next(r, &ev, &page));
		EXPECT_EQ(0, memcmp(&recs[i].ev, &ev, sizeof(ev)));
		if (ev.type == FLOWJIT_EV_EXEC) {
			ASSERT_NE(NULL, page);
			EXPECT_EQ(0, memcmp(recs[i].page, page, FLOWJIT_PAGE_SIZE));
		} else {
			EXPECT_EQ(NULL, page);
		}
	}
	EXPECT_EQ(0, jifl_fjreader_next(r, &ev, &page));
	jifl_fjreader_close(r);
}

/* Every cut of the file, at and between records, is seen as truncated. */
TEST_F(fjfile, every_truncation_is_refused)
{
	long len;
	int n, ret, bad = 0;

	for (len = self->size - 1; len >= 8; len--) {
		ASSERT_EQ(0, truncate(path, len));
		ret = read_all(path, &n);
		if (ret != -jifl_err_truncated) {
			TH_LOG("length %ld: %s", len, jifl_strerror(ret));
			bad++;
		}
	}
	EXPECT_EQ(0, bad);
}

struct corruption {
	const char *what;
	long offset;		/* negative: from the end */
	size_t len;
	const char *bytes;
	int error;
};

/* Offsets: header 0..55, command line 56..79, TRACK at 80, EXEC at 160. */
static const struct corruption corruptions[] = {
	{ "magic", 0, 1, "X", -jifl_err_format },
	{ "version", 8, 4, "\x02\0\0\0", -jifl_err_version },
	{ "header size not 8-aligned", 12, 4, "\x51\0\0\0", -jifl_err_format },
	{ "header size huge", 12, 4, "\0\0\0\x10", -jifl_err_format },
	{ "header size short of the command line", 12, 4, "\x38\0\0\0", -jifl_err_format },
	{ "record size", 16, 4, "\x58\0\0\0", -jifl_err_format },
	{ "page size", 20, 4, "\0\x20\0\0", -jifl_err_format },
	{ "command line length", 48, 4, "\x30\0\0\0", -jifl_err_format },
	{ "command line not ended", 56 + 18, 1, "x", -jifl_err_format },
	{ "reserved", 52, 4, "\1\0\0\0", -jifl_err_format },
	{ "tsc_hz (checksum)", 24, 1, "\x55", -jifl_err_checksum },
	{ "record type 0", 80, 2, "\0\0", -jifl_err_format },
	{ "record type unknown", 80, 2, "\x77\0", -jifl_err_format },
	{ "record size", 84, 4, "\x58\0\0\0", -jifl_err_format },
	{ "payload flag on a TRACK", 82, 2, "\1\0", -jifl_err_format },
	{ "EXEC without its payload flag", 162, 2, "\0\0", -jifl_err_format },
	{ "record field (checksum)", 80 + 8, 1, "\x55", -jifl_err_checksum },
	{ "page byte (checksum)", 160 + 80 + 100, 1, "\x55", -jifl_err_checksum },
	{ "end record count", -80 + 8, 1, "\x09", -jifl_err_format },
	{ "end record bytes", -80 + 64, 1, "\x09", -jifl_err_format },
	{ "end record checksum", -80 + 72, 1, "\x09", -jifl_err_checksum },
	{ "end record made an EXEC: no end", -80, 2, "\x01\0", -jifl_err_truncated },
	{ "end record ip", -80 + 48, 1, "\x01", -jifl_err_format },
};

static void patch(struct __test_metadata *_metadata, long off, long size,
		  const char *bytes, size_t len)
{
	FILE *f = fopen(path, "r+");

	ASSERT_NE(NULL, f);
	ASSERT_EQ(0, fseek(f, off < 0 ? size + off : off, SEEK_SET));
	ASSERT_EQ(len, fwrite(bytes, 1, len, f));
	fclose(f);
}

TEST_F(fjfile, corruptions_are_refused)
{
	size_t i;
	int n, ret;

	for (i = 0; i < sizeof(corruptions) / sizeof(corruptions[0]); i++) {
		const struct corruption *c = &corruptions[i];

		write_file(_metadata, path);
		ASSERT_EQ(0, read_all(path, &n));
		patch(_metadata, c->offset, self->size, c->bytes, c->len);
		ret = read_all(path, &n);
		EXPECT_EQ(c->error, ret) {
			TH_LOG("%s: got '%s', want '%s'", c->what, jifl_strerror(ret),
			       jifl_strerror(c->error));
		}
	}
}

TEST_F(fjfile, trailing_data_is_refused)
{
	FILE *f = fopen(path, "a");
	int n;

	ASSERT_NE(NULL, f);
	fputs("garbage", f);
	fclose(f);
	EXPECT_EQ(-jifl_err_format, read_all(path, &n));
}

TEST(foreign_and_missing_files)
{
	int n;

	EXPECT_EQ(jifl_err_errno(ENOENT), read_all("/nonexistent/x.fj", &n));
	EXPECT_EQ(-jifl_err_format, read_all("/bin/sh", &n));
	EXPECT_EQ(-jifl_err_format, read_all("/dev/null", &n));
}

TEST(writer_refuses_bad_records)
{
	struct jifl_fj_info info = { .pid = 1 };
	struct jifl_fjwriter *w;
	struct flowjit_event ev = { .type = FLOWJIT_EV_WRITE, .size = sizeof(ev) };
	char p[64];
	int n;

	snprintf(p, sizeof(p), "/tmp/fjfile-w.%d", getpid());
	ASSERT_EQ(0, jifl_fjwriter_open(&w, p, &info));
	ev.type = FLOWJIT_EV_MAX;
	EXPECT_EQ(-jifl_err_format, jifl_fjwriter_add(w, &ev));
	ev.type = JIFL_FJ_END;
	EXPECT_EQ(-jifl_err_format, jifl_fjwriter_add(w, &ev));
	ev.type = FLOWJIT_EV_WRITE;
	ev.size = 88;
	EXPECT_EQ(-jifl_err_format, jifl_fjwriter_add(w, &ev));
	ev.size = sizeof(ev);
	EXPECT_EQ(0, jifl_fjwriter_add(w, &ev));
	ASSERT_EQ(0, jifl_fjwriter_close(w));
	EXPECT_EQ(0, read_all(p, &n));
	EXPECT_EQ(1, n);
	unlink(p);
	EXPECT_EQ(jifl_err_errno(ENOENT), jifl_fjwriter_open(&w, "/nonexistent/x.fj", &info));
}

TEST_HARNESS_MAIN
