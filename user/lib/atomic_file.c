// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/atomic_file.h"
#include "lib/write_all.h"
#include "lib/stop_signals.h"

static const char *file_kind(mode_t m)
{
	if (S_ISLNK(m))
		return "a symbolic link";
	if (S_ISDIR(m))
		return "a directory";
	if (S_ISCHR(m) || S_ISBLK(m))
		return "a device";
	if (S_ISFIFO(m))
		return "a FIFO";
	if (S_ISSOCK(m))
		return "a socket";
	return "not a regular file";
}

/* A new name: its directory must be there, a directory, writable. */
static int check_dir_of(int dirfd, const char *path, char *err, size_t errlen)
{
	char copy[PATH_MAX];
	const char *dir;
	struct stat st;

	snprintf(copy, sizeof(copy), "%s", path);
	dir = dirname(copy);
	if (fstatat(dirfd, dir, &st, 0)) {
		snprintf(err, errlen, "%s: no directory %s to write it in (%s)",
			 path, dir, strerror(errno));
		return -1;
	}
	if (!S_ISDIR(st.st_mode)) {
		snprintf(err, errlen, "%s: %s is not a directory", path, dir);
		errno = ENOTDIR;
		return -1;
	}
	if (faccessat(dirfd, dir, W_OK, AT_EACCESS)) {
		snprintf(err, errlen, "%s: cannot write in %s (%s)", path, dir,
			 strerror(errno));
		return -1;
	}
	return 0;
}

int atomic_file_check(int dirfd, const char *path, char *err, size_t errlen)
{
	size_t n = strlen(path);
	struct stat st;

	if (!n) {
		snprintf(err, errlen, "an empty file name: give one");
		errno = ENOENT;
		return -1;
	}
	if (path[n - 1] == '/') {
		snprintf(err, errlen, "%s ends in '/', a directory's name: give a file name",
			 path);
		errno = EISDIR;
		return -1;
	}
	if (fstatat(dirfd, path, &st, AT_SYMLINK_NOFOLLOW)) {
		if (errno == ENOENT)
			return check_dir_of(dirfd, path, err, errlen);
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	if (S_ISREG(st.st_mode))
		return 0;
	snprintf(err, errlen,
		 "%s is %s; refusing to replace it (give a regular file or a new name)",
		 path, file_kind(st.st_mode));
	errno = EEXIST;
	return -1;
}

/* A new temporary file beside path: ".NAME.PID.N", never a *.prom or
 * *.json a reader could pick up half written. */
static int open_temp(int dirfd, const char *path, char *tmp, size_t len)
{
	char copy[PATH_MAX], dcopy[PATH_MAX];
	const char *base, *dir;
	int fd;

	snprintf(copy, sizeof(copy), "%s", path);
	snprintf(dcopy, sizeof(dcopy), "%s", path);
	base = basename(copy);
	dir = dirname(dcopy);
	for (int n = 0; n < 100; n++) {
		snprintf(tmp, len, "%s/.%s.%d.%d", dir, base, (int)getpid(), n);
		fd = openat(dirfd, tmp,
			    O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
			    0644);
		if (fd >= 0 || errno != EEXIST)
			return fd;
	}
	return -1;
}

static void sync_dir_of(int dirfd, const char *path)
{
	char copy[PATH_MAX];
	int dfd;

	snprintf(copy, sizeof(copy), "%s", path);
	dfd = openat(dirfd, dirname(copy), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd >= 0) {
		fsync(dfd);	/* the rename's durability: best effort */
		close(dfd);
	}
}

/* atomic_file_write() with the stop signals blocked (see below). */
static int write_and_rename(int dirfd, const char *path, const void *data,
			    size_t len, int flags, char *err, size_t errlen)
{
	char tmp[PATH_MAX + 64];
	int fd, e = 0;

	if (atomic_file_check(dirfd, path, err, errlen))
		return -1;
	fd = open_temp(dirfd, path, tmp, sizeof(tmp));
	if (fd < 0) {
		e = errno;
		snprintf(err, errlen, "%s: cannot create a file beside it: %s",
			 path, strerror(e));
		errno = e;
		return -1;
	}
	/* The umask must not hide the file from its readers. */
	if (fchmod(fd, 0644) || write_all(fd, data, len, -1) ||
	    ((flags & ATOMIC_FILE_SYNC) && fsync(fd)))
		e = errno;
	if (close(fd) && !e)
		e = errno;
	/* Checked again: the target may have changed during the write. */
	if (!e && atomic_file_check(dirfd, path, err, errlen)) {
		unlinkat(dirfd, tmp, 0);
		return -1;
	}
	if (!e && renameat(dirfd, tmp, dirfd, path))
		e = errno;
	if (e) {
		unlinkat(dirfd, tmp, 0);
		snprintf(err, errlen, "writing %s failed: %s; nothing was written",
			 path, strerror(e));
		errno = e;
		return -1;
	}
	if (flags & ATOMIC_FILE_SYNC)
		sync_dir_of(dirfd, path);
	return 0;
}

int atomic_file_begin(int dirfd, const char *path, char *tmp, size_t tmplen,
		      char *err, size_t errlen)
{
	int fd, e;

	if (atomic_file_check(dirfd, path, err, errlen))
		return -1;
	fd = open_temp(dirfd, path, tmp, tmplen);
	if (fd >= 0 && !fchmod(fd, 0644))
		return fd;
	e = errno;
	if (fd >= 0) {
		close(fd);
		unlinkat(dirfd, tmp, 0);
	}
	snprintf(err, errlen, "%s: cannot create a file beside it: %s", path,
		 strerror(e));
	errno = e;
	return -1;
}

int atomic_file_commit(int dirfd, const char *tmp, const char *path,
		       char *err, size_t errlen)
{
	int e;

	if (atomic_file_check(dirfd, path, err, errlen)) {
		e = errno;
		unlinkat(dirfd, tmp, 0);
		errno = e;
		return -1;
	}
	if (!renameat(dirfd, tmp, dirfd, path))
		return 0;
	e = errno;
	unlinkat(dirfd, tmp, 0);
	snprintf(err, errlen, "%s: %s", path, strerror(e));
	errno = e;
	return -1;
}

void atomic_file_discard(int dirfd, const char *tmp)
{
	unlinkat(dirfd, tmp, 0);
}

/*
 * A stop signal (SIGINT, SIGTERM, SIGHUP) waits until the file is in place
 * or the temporary one removed: a command without a handler would
 * otherwise die between the two and leave the temporary file behind.
 */
int atomic_file_write(int dirfd, const char *path, const void *data,
		      size_t len, int flags, char *err, size_t errlen)
{
	sigset_t mask;
	int ret, e;

	stop_signals_block(&mask, NULL);
	ret = write_and_rename(dirfd, path, data, len, flags, err, errlen);
	e = errno;
	stop_signals_restore(&mask);
	errno = e;
	return ret;
}
