/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Error codes of the JIFL library. Functions return 0 or a positive value
 * on success and the negative of one of these codes on failure. When the
 * code is jifl_err_io, errno still holds the system's reason.
 */
#ifndef JIFL_ERRCODE_H
#define JIFL_ERRCODE_H

enum jifl_error_code {
	jifl_ok,
	jifl_err_internal,	/* a broken invariant */
	jifl_err_invalid,	/* an invalid argument */
	jifl_err_nomem,		/* out of memory */
	jifl_err_io,		/* a system call failed; see errno */
	jifl_err_format,	/* a file is not in the expected format */
	jifl_err_nosupp,	/* the system does not offer what is needed */
	jifl_err_truncated,	/* a file ends in the middle of its data */
	jifl_err_version,	/* a file's format version is not supported */
	jifl_err_checksum,	/* a file's data does not match its checksum */
	jifl_err_nomap,		/* no code is known at this address and time */
	jifl_err_mismatch,	/* two input files do not come from the same run */
};

/* A human-readable description of @code (positive or negative). */
const char *jifl_strerror(int code);

#endif /* JIFL_ERRCODE_H */
