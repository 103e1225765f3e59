/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Error codes of the JIFL library. Functions return 0 or a positive value
 * on success and a negative code on failure: the negative of one of these,
 * or, for a failed system call, jifl_err_errno(errno), which carries the
 * system's reason inside the code (errno is not to be read afterwards).
 * jifl_strerror() says what any of them means.
 */
#ifndef JIFL_ERRCODE_H
#define JIFL_ERRCODE_H

#include <errno.h>

enum jifl_error_code {
	jifl_ok,
	jifl_err_internal,	/* a broken invariant */
	jifl_err_invalid,	/* an invalid argument */
	jifl_err_nomem,		/* out of memory */
	jifl_err_format,	/* a file is not in the expected format */
	jifl_err_nosupp,	/* the system does not offer what is needed */
	jifl_err_truncated,	/* a file ends in the middle of its data */
	jifl_err_version,	/* a file's format version is not supported */
	jifl_err_checksum,	/* a file's data does not match its checksum */
	jifl_err_nomap,		/* no code is known at this address and time */
	jifl_err_mismatch,	/* two input files do not come from the same run */
	jifl_err_noproc,	/* no such process in the trace */
	/* jifl_err_errno_base + E: a system call failed with errno E */
	jifl_err_errno_base = 0x10000,
};

/* The code of a system call that failed with @e (EIO if @e is 0). */
static inline int jifl_err_errno(int e)
{
	return -(jifl_err_errno_base + (e > 0 ? e : EIO));
}

/* Whether @code (positive or negative) is a system call's failure. */
static inline int jifl_err_is_errno(int code)
{
	return (code < 0 ? -code : code) > jifl_err_errno_base;
}

/* The errno of a system call's failure @code; 0 for the library's codes. */
static inline int jifl_err_to_errno(int code)
{
	return jifl_err_is_errno(code) ? (code < 0 ? -code : code) - jifl_err_errno_base : 0;
}

/* A human-readable description of @code (positive or negative). */
const char *jifl_strerror(int code);

/*
 * For the tools, which print each failure once, where they give up:
 * "TOOL: WHAT: WHY\n" on stderr, WHAT from @fmt, WHY jifl_strerror(@code);
 * jifl_perror_hint() adds " (HINT)". A usage error with no code is
 * "TOOL: MESSAGE"; a warning, jifl_warn()'s "TOOL: warning: MESSAGE". The
 * library itself never prints.
 */
void jifl_perror(const char *tool, int code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
void jifl_perror_hint(const char *tool, int code, const char *hint, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
void jifl_warn(const char *tool, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif /* JIFL_ERRCODE_H */
