// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/command.h"
#include "common/errcode.h"
#include "jiflproc.h"
#include "common/number.h"

int jifl_proc_path(const char *name, char *buf, size_t size)
{
	const char *dir = secure_getenv("JIFL_PROC_DIR");

	if (!dir || !*dir)
		dir = "/proc/jifl";
	if (snprintf(buf, size, "%s/%s", dir, name) >= (int)size)
		return jifl_err_errno(ENAMETOOLONG);
	return 0;
}

/* File @name opened with @flags: its descriptor, or a negative code. */
static int open_file(const char *name, int flags)
{
	char path[PATH_MAX];
	int fd = jifl_proc_path(name, path, sizeof(path));

	if (!fd)
		fd = open(path, flags | O_CLOEXEC);
	return fd < 0 && !jifl_err_is_errno(fd) ? jifl_err_errno(errno) : fd;
}

/* To the end: seq_file hands a long listing out one read at a time. */
static int read_all(int fd, char **text)
{
	size_t size = 0, len = 0;
	char *buf = NULL, *bigger;
	ssize_t n;

	do {
		if (len + 1 >= size) {
			size = size ? 2 * size : 4096;
			bigger = realloc(buf, size);
			if (!bigger) {
				free(buf);
				return -jifl_err_nomem;
			}
			buf = bigger;
		}
		n = read(fd, buf + len, size - 1 - len);
		if (n > 0)
			len += n;
	} while (n > 0 || (n < 0 && errno == EINTR));
	if (n < 0) {
		n = jifl_err_errno(errno);
		free(buf);
		return n;
	}
	buf[len] = '\0';
	*text = buf;
	return 0;
}

int jifl_proc_read(const char *name, char **text)
{
	int fd = open_file(name, O_RDONLY), err;

	if (fd < 0)
		return fd;
	err = read_all(fd, text);
	close(fd);
	return err;
}

/*
 * The next "key: value" line at *@pos, split in place; *@pos moves past
 * it. Returns 1, 0 at the end, or -jifl_err_format.
 */
static int next_line(char **pos, char **key, char **value)
{
	char *line = *pos, *end, *colon;

	if (!*line)
		return 0;
	end = strchr(line, '\n');
	colon = strchr(line, ':');
	if (!end || !colon || colon > end || colon[1] != ' ' || colon == line)
		return -jifl_err_format;
	*end = *colon = '\0';
	*key = line;
	*value = colon + 2;
	*pos = end + 1;
	return 1;
}

/* A whole decimal number, not negative; else -jifl_err_format. */
static int parse_num(const char *s, unsigned long long *v)
{
	uint64_t n;

	if (jifl_number_whole(s, 10, UINT64_MAX, &n))
		return -jifl_err_format;
	*v = n;
	return 0;
}

static int parse_control(struct jifl_proc_control *c, char *pos)
{
	char *key, *value;
	unsigned long long v;
	int err, seen = 0;

	memset(c, 0, sizeof(*c));
	c->tree = -1;
	while ((err = next_line(&pos, &key, &value)) > 0) {
		if (!strcmp(key, "syscalls")) {
			if (strlen(value) >= sizeof(c->list) ||
			    jifl_sysset_parse(&c->syscalls, value, NULL))
				return -jifl_err_format;
			strcpy(c->list, value);
			seen |= 1;
		} else if (!strcmp(key, "enabled")) {
			if (parse_num(value, &v) || v > 1)
				return -jifl_err_format;
			c->enabled = v;
			seen |= 2;
		} else if (!strcmp(key, "tool")) {
			if (strlen(value) >= sizeof(c->tool))
				return -jifl_err_format;
			strcpy(c->tool, value);
		} else if (!strcmp(key, "pid")) {
			if (parse_num(value, &v) || v > INT32_MAX)
				return -jifl_err_format;
			c->pid = v;
			seen |= 4;
		} else if (!strcmp(key, "tree")) {
			/* kernels without descendant selection have no line */
			if (parse_num(value, &v) || v > 1)
				return -jifl_err_format;
			c->tree = v;
		}
	}
	return err < 0 || seen != 7 ? -jifl_err_format : 0;
}

int jifl_proc_read_control(struct jifl_proc_control *c)
{
	char *text = NULL;
	int err = jifl_proc_read(JIFL_PROC_CONTROL, &text);

	if (!err)
		err = parse_control(c, text);
	free(text);
	return err;
}

static int parse_stats(struct jifl_proc_stats *s, char *pos)
{
	char *key, *value;
	int err;

	s->n = 0;
	while ((err = next_line(&pos, &key, &value)) > 0) {
		/* names are identifiers: JSON and printf need no escaping */
		if (s->n == JIFL_PROC_STATS_MAX ||
		    strlen(key) >= sizeof(s->item[0].key) ||
		    key[strspn(key, "abcdefghijklmnopqrstuvwxyz0123456789_")] ||
		    parse_num(value, &s->item[s->n].value))
			return -jifl_err_format;
		strcpy(s->item[s->n++].key, key);
	}
	return err;
}

int jifl_proc_read_stats(struct jifl_proc_stats *s)
{
	char *text = NULL;
	int err = jifl_proc_read(JIFL_PROC_STATS, &text);

	if (!err)
		err = parse_stats(s, text);
	free(text);
	return err;
}

long long jifl_proc_stat(const struct jifl_proc_stats *s, const char *key)
{
	int i;

	for (i = 0; i < s->n; i++)
		if (!strcmp(s->item[i].key, key))
			return s->item[i].value;
	return -1;
}

/* Write @cmd to file @name in one write(), as the kernel takes commands. */
static int write_file(const char *name, const char *cmd)
{
	char path[PATH_MAX];
	int err = jifl_proc_path(name, path, sizeof(path));

	return err ? err : jifl_command_write(path, cmd);
}

int jifl_proc_command(const char *cmd)
{
	if (strlen(cmd) > JIFL_PROC_CMD_MAX)
		return jifl_err_errno(E2BIG);
	return write_file(JIFL_PROC_CONTROL, cmd);
}

int jifl_proc_enable(int on)
{
	return jifl_proc_command(on ? "enable" : "disable");
}

int jifl_proc_set_pid(pid_t pid, int tree)
{
	char cmd[32];

	snprintf(cmd, sizeof(cmd), "%s %d", tree ? "tree" : "pid", (int)pid);
	return jifl_proc_command(cmd);
}

int jifl_proc_set_syscalls(const struct jifl_sysset *set)
{
	char cmd[JIFL_PROC_CMD_MAX + 1] = "syscalls ";
	int n = jifl_sysset_format(set, cmd + 9, sizeof(cmd) - 9);

	if (n < 0)
		return jifl_err_errno(E2BIG);
	return jifl_proc_command(cmd);
}

int jifl_proc_flush(void)
{
	return jifl_proc_command("flush");
}

int jifl_proc_set_tool(const char *name)
{
	char cmd[64];

	if (snprintf(cmd, sizeof(cmd), "tool %s", name) >= (int)sizeof(cmd))
		return jifl_err_errno(E2BIG);
	return jifl_proc_command(cmd);
}

int jifl_proc_tool_command(const char *cmd)
{
	return write_file(JIFL_PROC_TOOL, cmd);
}

int jifl_proc_profile_command(const char *cmd)
{
	return write_file(JIFL_PROC_PROFILE, cmd);
}
