// SPDX-License-Identifier: GPL-2.0
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "errcode.h"

const char *jifl_strerror(int code)
{
	if (jifl_err_is_errno(code))
		return strerror(jifl_err_to_errno(code));
	if (code < 0)
		code = -code;

	switch ((enum jifl_error_code)code) {
	case jifl_ok:
		return "success";
	case jifl_err_internal:
		return "internal error";
	case jifl_err_invalid:
		return "invalid argument";
	case jifl_err_nomem:
		return "out of memory";
	case jifl_err_format:
		return "bad file format";
	case jifl_err_nosupp:
		return "not supported on this system";
	case jifl_err_truncated:
		return "file is truncated";
	case jifl_err_version:
		return "unsupported file format version";
	case jifl_err_checksum:
		return "file is corrupted (checksum mismatch)";
	case jifl_err_nomap:
		return "no code known at this address and time";
	case jifl_err_mismatch:
		return "files do not come from the same run";
	case jifl_err_noproc:
		return "no such process in the trace";
	case jifl_err_errno_base:
		break;
	}
	return "unknown error";
}

static void vperror(const char *tool, int code, const char *hint, const char *fmt, va_list ap)
{
	char what[1024];

	vsnprintf(what, sizeof(what), fmt, ap);
	fprintf(stderr, "%s: %s: %s%s%s%s\n", tool, what, jifl_strerror(code),
		hint ? " (" : "", hint ? hint : "", hint ? ")" : "");
}

void jifl_perror(const char *tool, int code, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vperror(tool, code, NULL, fmt, ap);
	va_end(ap);
}

void jifl_perror_hint(const char *tool, int code, const char *hint, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vperror(tool, code, hint, fmt, ap);
	va_end(ap);
}

void jifl_warn(const char *tool, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: warning: ", tool);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}
