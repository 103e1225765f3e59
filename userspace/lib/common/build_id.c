// SPDX-License-Identifier: GPL-2.0
#include <fcntl.h>
#include <gelf.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "build_id.h"
#include "errcode.h"

/* The GNU build ID among the notes of @data. */
static int note_find(Elf_Data *data, uint8_t *id)
{
	size_t off = 0, name_off, desc_off;
	GElf_Nhdr nh;

	while ((off = gelf_getnote(data, off, &nh, &name_off, &desc_off)) > 0) {
		if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == sizeof(ELF_NOTE_GNU) &&
		    !memcmp((const char *)data->d_buf + name_off, ELF_NOTE_GNU,
			    sizeof(ELF_NOTE_GNU)) &&
		    nh.n_descsz && nh.n_descsz <= JIFL_BUILD_ID_MAX) {
			memcpy(id, (const char *)data->d_buf + desc_off, nh.n_descsz);
			return nh.n_descsz;
		}
	}
	return -jifl_err_format;
}

/* The build ID in the PT_NOTE segments of @elf, as the loader sees them. */
static int elf_build_id(Elf *elf, uint8_t *id)
{
	int ret = -jifl_err_format;
	Elf_Data *data;
	GElf_Phdr ph;
	size_t n, i;

	if (!elf || elf_kind(elf) != ELF_K_ELF || gelf_getclass(elf) != ELFCLASS64 ||
	    elf_getphdrnum(elf, &n))
		return -jifl_err_format;
	for (i = 0; i < n && ret < 0; i++) {
		if (!gelf_getphdr(elf, i, &ph) || ph.p_type != PT_NOTE)
			continue;
		data = elf_getdata_rawchunk(elf, ph.p_offset, ph.p_filesz, ELF_T_NHDR);
		if (data)
			ret = note_find(data, id);
	}
	return ret;
}

int jifl_build_id_read(const char *path, uint8_t id[JIFL_BUILD_ID_MAX])
{
	Elf *elf;
	int fd, ret;

	if (elf_version(EV_CURRENT) == EV_NONE)
		return -jifl_err_internal;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return jifl_err_errno(errno);
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	ret = elf_build_id(elf, id);
	elf_end(elf);
	close(fd);
	return ret;
}

int jifl_build_id_mem(const void *image, size_t size, uint8_t id[JIFL_BUILD_ID_MAX])
{
	Elf *elf;
	int ret;

	if (elf_version(EV_CURRENT) == EV_NONE)
		return -jifl_err_internal;
	/* libelf does not write to an image it only reads. */
	elf = elf_memory((char *)image, size);
	ret = elf_build_id(elf, id);
	elf_end(elf);
	return ret;
}

char *jifl_build_id_str(const uint8_t *id, size_t size, char buf[JIFL_BUILD_ID_STR])
{
	size_t i;

	buf[0] = '\0';
	for (i = 0; i < size && i < JIFL_BUILD_ID_MAX; i++)
		snprintf(buf + 2 * i, 3, "%02x", id[i]);
	return buf;
}
