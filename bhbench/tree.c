// SPDX-License-Identifier: GPL-2.0
/*
 * The working tree under DIR, file contents, and what we can learn about
 * DIR's synchronous semantics.
 */
#include "bhbench.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <linux/fs.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

int tree_create(struct tree *tr, struct runner *r, const char *dir,
		int ntasks, bool shared)
{
	char path[PATH_MAX];
	int i, n;

	*tr = (struct tree){ .ntasks = ntasks, .shared = shared };
	n = snprintf(tr->root, sizeof(tr->root), "%s/bhbench.%d", dir,
		     (int)getpid());
	if (n < 0 || (size_t)n >= sizeof(tr->root))
		return runner_fail(r, "-D %s: path too long", dir);
	/* EEXIST means it is not ours, and we must never remove it. */
	if (mkdir(tr->root, 0755))
		return runner_fail(r, "mkdir %s: %s", tr->root,
				   strerror(errno));
	tr->created = true;
	for (i = 0; i < (shared ? 1 : ntasks); i++) {
		tree_workdir(tr, i, path, sizeof(path));
		if (mkdir(path, 0755))
			return runner_fail(r, "mkdir %s: %s", path,
					   strerror(errno));
	}
	return 0;
}

void tree_workdir(const struct tree *tr, int task, char *buf, size_t len)
{
	if (tr->shared)
		snprintf(buf, len, "%s/shared", tr->root);
	else
		snprintf(buf, len, "%s/d%d", tr->root, task);
}

int tree_open_workdir(const struct tree *tr, struct task *t)
{
	char path[PATH_MAX];
	int dfd;

	tree_workdir(tr, t->id, path, sizeof(path));
	dfd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0)
		task_fail(t, "open %s: %s", path, strerror(errno));
	return dfd;
}

int tree_fail(const struct tree *tr, struct task *t, const char *what,
	      const char *name, int err)
{
	char dir[PATH_MAX];

	tree_workdir(tr, t->id, dir, sizeof(dir));
	return task_fail(t, "%s %s/%s: %s", what, dir, name, strerror(err));
}

/* nftw has no user pointer: one removal at a time, from the main thread. */
static int remove_errno;
static char remove_path[PATH_MAX];

static int remove_one(const char *path, const struct stat *st, int type,
		      struct FTW *ftw)
{
	(void)st;
	(void)ftw;
	if (remove(path) == 0 || errno == ENOENT)
		return 0;
	if (!remove_errno) {
		remove_errno = errno;
		snprintf(remove_path, sizeof(remove_path), "%s", path);
	}
	(void)type;
	/* Keep going: leave as little behind as we can. */
	return 0;
}

int tree_remove(struct tree *tr, struct runner *r)
{
	if (!tr->created)
		return 0;
	remove_errno = 0;
	/* FTW_PHYS: never follow a link out of our tree. */
	if (nftw(tr->root, remove_one, 32,
		 FTW_DEPTH | FTW_PHYS | FTW_MOUNT) && !remove_errno)
		remove_errno = errno;
	if (remove_errno)
		return runner_fail(r, "remove %s: %s",
				   remove_path[0] ? remove_path : tr->root,
				   strerror(remove_errno));
	tr->created = false;
	return 0;
}

long dir_count(const char *path)
{
	struct dirent *de;
	long n = 0;
	DIR *d;

	d = opendir(path);
	if (!d)
		return -1;
	errno = 0;
	while ((de = readdir(d)))
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, ".."))
			n++;
	if (errno)
		n = -1;
	closedir(d);
	return n;
}

/* splitmix64's finaliser: cheap, and every bit depends on every input bit. */
static uint64_t mix64(uint64_t x)
{
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
	return x ^ (x >> 31);
}

void pattern_fill(void *buf, size_t len, uint32_t task, uint64_t index)
{
	uint64_t seed = mix64(((uint64_t)task << 40) ^ index), w;
	unsigned char *p = buf;
	size_t off;

	/* Differs per file and per 8-byte word: swapped blocks show up. */
	for (off = 0; off < len; off += 8) {
		w = mix64(seed + off);
		memcpy(p + off, &w, len - off < 8 ? len - off : 8);
	}
}

/* Undoes mountinfo's octal escapes (\040 for a space) in place. */
static void unescape(char *s)
{
	char *d = s;

	while (*s) {
		if (s[0] == '\\' && s[1] >= '0' && s[1] <= '3' && s[2] &&
		    s[3]) {
			*d++ = (char)((s[1] - '0') * 64 + (s[2] - '0') * 8 +
				      (s[3] - '0'));
			s += 4;
		} else {
			*d++ = *s++;
		}
	}
	*d = '\0';
}

static bool has_opt(const char *opts, const char *want)
{
	size_t n = strlen(want);
	const char *p = opts;

	while ((p = strstr(p, want))) {
		if ((p == opts || p[-1] == ',') && (p[n] == ',' || !p[n]))
			return true;
		p += n;
	}
	return false;
}

static bool under(const char *path, const char *mnt)
{
	size_t n = strlen(mnt);

	if (!strcmp(mnt, "/"))
		return true;
	return !strncmp(path, mnt, n) && (path[n] == '/' || !path[n]);
}

/*
 * The mount holding DIR: same device, longest mount point above DIR's real
 * path. Returns its per-mount and superblock options joined by a comma.
 */
static int mount_opts(const char *dir, char *out, size_t len)
{
	char line[4096], mnt[PATH_MAX], opts[1024], sopts[1024], *real, *sep;
	unsigned int maj, min;
	size_t best = 0;
	struct stat st;
	FILE *f;

	if (stat(dir, &st) || !(real = realpath(dir, NULL)))
		return -1;
	f = fopen("/proc/self/mountinfo", "re");
	if (!f) {
		free(real);
		return -1;
	}
	while (fgets(line, sizeof(line), f)) {
		sep = strstr(line, " - ");
		if (!sep || sscanf(line, "%*d %*d %u:%u %*s %4095s %1023s", &maj,
				   &min, mnt, opts) != 4 ||
		    sscanf(sep, " - %*s %*s %1023s", sopts) != 1)
			continue;
		unescape(mnt);
		if (makedev(maj, min) != st.st_dev || !under(real, mnt) ||
		    strlen(mnt) < best)
			continue;
		best = strlen(mnt);
		snprintf(out, len, "%s,%s", opts, sopts);
	}
	fclose(f);
	free(real);
	return best ? 0 : -1;
}

const char *dir_sync_mode(const char *dir)
{
	char opts[2100];
	int fd, attr = 0;
	bool known = false;

	/* chattr +S / +D on DIR is inherited by what we create below it. */
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd >= 0) {
		if (ioctl(fd, FS_IOC_GETFLAGS, &attr) == 0)
			known = true;
		close(fd);
	}
	if (mount_opts(dir, opts, sizeof(opts)) == 0) {
		known = true;
		if (has_opt(opts, "sync"))
			return "sync";
		if (has_opt(opts, "dirsync"))
			return "dirsync";
	}
	if (attr & FS_SYNC_FL)
		return "sync";
	if (attr & FS_DIRSYNC_FL)
		return "dirsync";
	return known ? "none" : "unknown";
}
