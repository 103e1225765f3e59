/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Loading and unloading the JIFL tool modules the kernel build installs
 * under /lib/modules/RELEASE/kernel/arch/x86/jifl/tools/ (guest tests
 * and the bench).
 */
#ifndef JIFL_MODULE_H
#define JIFL_MODULE_H

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <unistd.h>

/*
 * Load module @name (e.g. "jifl_bbcount") with the parameters @params
 * ("max_probes=16384"): 0 or -errno (-EEXIST if loaded).
 */
static inline int jifl_module_load_params(const char *name, const char *params)
{
	char path[256];
	struct utsname u;
	int fd, ret;

	uname(&u);
	snprintf(path, sizeof(path), "/lib/modules/%s/kernel/arch/x86/jifl/tools/%s.ko",
		 u.release, name);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	ret = syscall(SYS_finit_module, fd, params, 0) ? -errno : 0;
	close(fd);
	return ret;
}

/* The same with no parameters. */
static inline int jifl_module_load(const char *name)
{
	return jifl_module_load_params(name, "");
}

/* Unload module @name without waiting: 0 or -errno. */
static inline int jifl_module_unload(const char *name)
{
	return syscall(SYS_delete_module, name, O_NONBLOCK) ? -errno : 0;
}

#endif /* JIFL_MODULE_H */
