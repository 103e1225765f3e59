// SPDX-License-Identifier: GPL-2.0
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "errcode.h"
#include "jiflproc.h"

/* Each proc file is a few hundred bytes, read in one go. */
static int slurp(const char *path, char *buf, size_t size)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	size_t len = 0;
	ssize_t n;
	int saved;

	if (fd < 0)
		return -jifl_err_io;
	do {
		n = read(fd, buf + len, size - 1 - len);
		if (n > 0)
			len += n;
	} while ((n > 0 && len < size - 1) || (n < 0 && errno == EINTR));
	saved = errno;
	close(fd);
	errno = saved;
	if (n < 0)
		return -jifl_err_io;
	if (len == size - 1)
		return -jifl_err_format;
	buf[len] = '\0';
	return 0;
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
	char *end;

	if (!isdigit((unsigned char)*s))
		return -jifl_err_format;
	errno = 0;
	*v = strtoull(s, &end, 10);
	return errno || *end ? -jifl_err_format : 0;
}

int jifl_proc_read_control(struct jifl_proc_control *c)
{
	char buf[4096], *pos = buf, *key, *value;
	unsigned long long v;
	int err, seen = 0;

	err = slurp(JIFL_PROC_CONTROL, buf, sizeof(buf));
	if (err)
		return err;
	memset(c, 0, sizeof(*c));
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
		}
	}
	return err < 0 || seen != 7 ? -jifl_err_format : 0;
}

int jifl_proc_read_stats(struct jifl_proc_stats *s)
{
	char buf[4096], *pos = buf, *key, *value;
	int err;

	err = slurp(JIFL_PROC_STATS, buf, sizeof(buf));
	if (err)
		return err;
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

long long jifl_proc_stat(const struct jifl_proc_stats *s, const char *key)
{
	int i;

	for (i = 0; i < s->n; i++)
		if (!strcmp(s->item[i].key, key))
			return s->item[i].value;
	return -1;
}

int jifl_proc_command(const char *cmd)
{
	size_t len = strlen(cmd);
	ssize_t n;
	int fd, saved;

	if (len > JIFL_PROC_CMD_MAX) {
		errno = E2BIG;
		return -jifl_err_io;
	}
	fd = open(JIFL_PROC_CONTROL, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -jifl_err_io;
	n = write(fd, cmd, len);
	saved = errno;
	close(fd);
	errno = saved;
	return n < 0 ? -jifl_err_io : 0;
}

int jifl_proc_enable(int on)
{
	return jifl_proc_command(on ? "enable" : "disable");
}

int jifl_proc_set_pid(pid_t pid)
{
	char cmd[32];

	snprintf(cmd, sizeof(cmd), "pid %d", (int)pid);
	return jifl_proc_command(cmd);
}

int jifl_proc_set_syscalls(const struct jifl_sysset *set)
{
	char cmd[JIFL_PROC_CMD_MAX + 1] = "syscalls ";
	int n = jifl_sysset_format(set, cmd + 9, sizeof(cmd) - 9);

	if (n < 0) {
		errno = E2BIG;
		return -jifl_err_io;
	}
	return jifl_proc_command(cmd);
}

int jifl_proc_flush(void)
{
	return jifl_proc_command("flush");
}

int jifl_proc_set_tool(const char *name)
{
	char cmd[64];

	if (snprintf(cmd, sizeof(cmd), "tool %s", name) >= (int)sizeof(cmd)) {
		errno = E2BIG;
		return -jifl_err_io;
	}
	return jifl_proc_command(cmd);
}
