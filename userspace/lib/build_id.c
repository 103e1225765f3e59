// SPDX-License-Identifier: GPL-2.0
#include <elf.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "build_id.h"
#include "errcode.h"

#define NOTE_ALIGN(n)	(((n) + 3) & ~(size_t)3)

/* Find the GNU build ID note among the notes in @buf. */
static int build_id_find(const uint8_t *buf, size_t len, uint8_t *id)
{
	size_t off = 0;
	Elf64_Nhdr nh;

	while (off + sizeof(nh) <= len) {
		memcpy(&nh, buf + off, sizeof(nh));
		off += sizeof(nh);
		if (off + NOTE_ALIGN(nh.n_namesz) + nh.n_descsz > len)
			break;
		if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 &&
		    !memcmp(buf + off, "GNU", 4) && nh.n_descsz &&
		    nh.n_descsz <= JIFL_BUILD_ID_MAX) {
			memcpy(id, buf + off + 4, nh.n_descsz);
			return nh.n_descsz;
		}
		off += NOTE_ALIGN(nh.n_namesz) + NOTE_ALIGN(nh.n_descsz);
	}
	return -jifl_err_format;
}

int jifl_build_id_read(const char *path, uint8_t id[JIFL_BUILD_ID_MAX])
{
	int fd, i, ret = -jifl_err_format;
	Elf64_Ehdr eh;
	Elf64_Phdr ph;
	uint8_t *buf;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -jifl_err_io;
	if (pread(fd, &eh, sizeof(eh), 0) != sizeof(eh) ||
	    memcmp(eh.e_ident, ELFMAG, SELFMAG) || eh.e_ident[EI_CLASS] != ELFCLASS64 ||
	    eh.e_phentsize != sizeof(ph))
		goto out;
	for (i = 0; i < eh.e_phnum && ret < 0; i++) {
		if (pread(fd, &ph, sizeof(ph), eh.e_phoff + i * sizeof(ph)) != sizeof(ph))
			break;
		if (ph.p_type != PT_NOTE || !ph.p_filesz || ph.p_filesz > 65536)
			continue;
		buf = malloc(ph.p_filesz);
		if (!buf) {
			ret = -jifl_err_nomem;
			break;
		}
		if (pread(fd, buf, ph.p_filesz, ph.p_offset) == (ssize_t)ph.p_filesz)
			ret = build_id_find(buf, ph.p_filesz, id);
		free(buf);
	}
out:
	close(fd);
	return ret;
}
