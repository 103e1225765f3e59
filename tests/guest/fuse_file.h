/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A FUSE file system of one regular file, for the guest tests: a child
 * process answers the kernel on /dev/fuse (no libfuse), keeping the
 * file's bytes in its own memory. The mount has no writeback cache, so
 * write(2) goes through fuse_perform_write(), FUSE's own copy into the
 * page cache, not generic_perform_write().
 *
 *	struct fuse_file ff;
 *	fuse_file_mount(&ff, "/fjfuse", 4096);	path ff.path: "/fjfuse/file"
 *	...
 *	fuse_file_umount(&ff);
 */
#ifndef JIFL_TESTS_FUSE_FILE_H
#define JIFL_TESTS_FUSE_FILE_H

#include <errno.h>
#include <linux/fuse.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <fcntl.h>
#include <unistd.h>

#define FUSE_FILE_ROOT	1	/* the root directory's node id */
#define FUSE_FILE_INO	2
#define FUSE_FILE_NAME	"file"
#define FUSE_FILE_MAX	65536

/* Set before fuse_file_mount(): the server answers each READ this much later. */
static unsigned int fuse_file_read_delay_ms;

struct fuse_file {
	char dir[64];
	char path[80];
	pid_t server;
	int dev;
};

static void fuse_file_attr(struct fuse_attr *a, uint64_t ino, size_t size)
{
	memset(a, 0, sizeof(*a));
	a->ino = ino;
	a->nlink = 1;
	a->blksize = 4096;
	if (ino == FUSE_FILE_ROOT) {
		a->mode = S_IFDIR | 0755;
		a->nlink = 2;
	} else {
		a->mode = S_IFREG | 0755;
		a->size = size;
		a->blocks = (size + 511) / 512;
	}
}

/* One reply: @err (a negative errno or 0) and @len bytes of @body. */
static int fuse_file_reply(int dev, uint64_t unique, int err, const void *body, size_t len)
{
	struct fuse_out_header h = { .error = err, .unique = unique };
	struct iovec iov[2] = {
		{ .iov_base = &h, .iov_len = sizeof(h) },
		{ .iov_base = (void *)body, .iov_len = err ? 0 : len },
	};

	h.len = sizeof(h) + iov[1].iov_len;
	return writev(dev, iov, 2) == (ssize_t)h.len ? 0 : -1;
}

/* The server: serves requests until the file system is unmounted. */
static void fuse_file_serve(int dev, size_t size)
{
	static unsigned char data[FUSE_FILE_MAX];
	static unsigned char buf[FUSE_FILE_MAX + FUSE_MIN_READ_BUFFER];
	union {
		struct fuse_init_out init;
		struct fuse_entry_out entry;
		struct fuse_attr_out attr;
		struct fuse_open_out open;
		struct fuse_write_out write;
	} o;

	for (;;) {
		ssize_t n = read(dev, buf, sizeof(buf));
		struct fuse_in_header *in = (void *)buf;
		void *arg = buf + sizeof(*in);
		int err = 0;
		size_t len = 0;
		const void *body = &o;

		if (n < 0 && (errno == EINTR || errno == ENOENT || errno == EAGAIN))
			continue;
		if (n < (ssize_t)sizeof(*in))
			_exit(0);	/* ENODEV: unmounted */
		memset(&o, 0, sizeof(o));
		switch (in->opcode) {
		case FUSE_INIT: {
			struct fuse_init_in *ii = arg;

			o.init.major = FUSE_KERNEL_VERSION;
			o.init.minor = FUSE_KERNEL_MINOR_VERSION;
			o.init.max_readahead = ii->max_readahead;
			o.init.max_write = FUSE_FILE_MAX;
			o.init.time_gran = 1;
			len = sizeof(o.init);
			break;
		}
		case FUSE_LOOKUP:
			if (in->nodeid != FUSE_FILE_ROOT || strcmp(arg, FUSE_FILE_NAME)) {
				err = -ENOENT;
				break;
			}
			o.entry.nodeid = FUSE_FILE_INO;
			o.entry.attr_valid = o.entry.entry_valid = 3600;
			fuse_file_attr(&o.entry.attr, FUSE_FILE_INO, size);
			len = sizeof(o.entry);
			break;
		case FUSE_GETATTR:
			o.attr.attr_valid = 3600;
			fuse_file_attr(&o.attr.attr, in->nodeid, size);
			len = sizeof(o.attr);
			break;
		case FUSE_OPEN:
		case FUSE_OPENDIR:
			len = sizeof(o.open);	/* page cache, no writeback cache */
			break;
		case FUSE_READ: {
			struct fuse_read_in *r = arg;

			if (fuse_file_read_delay_ms)
				usleep(fuse_file_read_delay_ms * 1000);
			body = data;
			if (r->offset < size) {
				body = data + r->offset;
				len = size - r->offset < r->size ? size - r->offset : r->size;
			}
			break;
		}
		case FUSE_WRITE: {
			struct fuse_write_in *w = arg;

			if (w->offset > size || w->size > size - w->offset) {
				err = -EFBIG;
				break;
			}
			memcpy(data + w->offset, w + 1, w->size);
			o.write.size = w->size;
			len = sizeof(o.write);
			break;
		}
		case FUSE_FLUSH:
		case FUSE_RELEASE:
		case FUSE_RELEASEDIR:
		case FUSE_FSYNC:
		case FUSE_DESTROY:
			break;
		case FUSE_FORGET:
		case FUSE_BATCH_FORGET:
		case FUSE_INTERRUPT:
			continue;	/* no reply */
		default:
			err = -ENOSYS;
		}
		if (fuse_file_reply(dev, in->unique, err, body, len))
			_exit(1);
	}
}

/*
 * Mount at @dir a file system whose only file, @dir/file, has @size
 * bytes (zeros at first). Returns 0, or -1 with errno set.
 */
static int fuse_file_mount(struct fuse_file *ff, const char *dir, size_t size)
{
	char opts[128];

	memset(ff, 0, sizeof(*ff));
	if (size > FUSE_FILE_MAX) {
		errno = EINVAL;
		return -1;
	}
	snprintf(ff->dir, sizeof(ff->dir), "%s", dir);
	snprintf(ff->path, sizeof(ff->path), "%s/" FUSE_FILE_NAME, dir);
	if (mkdir(dir, 0755) && errno != EEXIST)
		return -1;
	ff->dev = open("/dev/fuse", O_RDWR | O_CLOEXEC);
	if (ff->dev < 0)
		return -1;
	snprintf(opts, sizeof(opts), "fd=%d,rootmode=40000,user_id=0,group_id=0", ff->dev);
	if (mount("jifl-test", dir, "fuse", MS_NOSUID | MS_NODEV, opts)) {
		close(ff->dev);
		return -1;
	}
	ff->server = fork();
	if (ff->server < 0) {
		umount2(dir, MNT_DETACH);
		close(ff->dev);
		return -1;
	}
	if (!ff->server)
		fuse_file_serve(ff->dev, size);
	return 0;
}

static void fuse_file_umount(struct fuse_file *ff)
{
	int st;

	if (ff->server <= 0)
		return;
	umount2(ff->dir, MNT_DETACH);
	close(ff->dev);
	kill(ff->server, SIGKILL);
	waitpid(ff->server, &st, 0);
	rmdir(ff->dir);
	ff->server = 0;
}

#endif /* JIFL_TESTS_FUSE_FILE_H */
