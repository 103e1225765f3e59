// SPDX-License-Identifier: GPL-2.0
#include "errcode.h"

const char *jifl_strerror(int code)
{
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
	case jifl_err_io:
		return "input/output error";
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
	}
	return "unknown error";
}
