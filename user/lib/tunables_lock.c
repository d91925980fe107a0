// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/atomic_file.h"
#include "lib/errmsg.h"
#include "lib/tunables.h"
#include "lib/tunables_lock.h"

static const char *run_dir = TUNABLES_RUN_DIR;

void tunables_lock_dir_set(const char *dir)
{
	run_dir = dir;
}

/* The run directory, made if absent; never followed through a symlink. */
static int open_run_dir(char *err, size_t errlen)
{
	int fd;

	if (mkdir(run_dir, 0755) && errno != EEXIST) {
		snprintf(err, errlen, "cannot make %s for the tuners' locks: %s",
			 run_dir, strerror(errno));
		return -1;
	}
	fd = open(run_dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		snprintf(err, errlen, "cannot open %s for the tuners' locks: %s",
			 run_dir, strerror(errno));
	return fd;
}

/* "PID COMMAND" of the lock's holder, as it wrote it, or "". */
static void holder_of(int fd, char *buf, size_t len)
{
	ssize_t n = pread(fd, buf, len - 1, 0);

	buf[n > 0 ? n : 0] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
}

static int claim(struct tunables_claim *c, const char *by, char *err,
		 size_t errlen)
{
	char file[64], holder[64], me[64];
	long pid;
	int n;

	c->fd = -1;
	c->dirfd = open_run_dir(err, errlen);
	if (c->dirfd < 0)
		return -1;
	snprintf(file, sizeof(file), "%s.lock", c->name);
	/* Close-on-exec: a workload bhscope runs must not hold it. */
	c->fd = openat(c->dirfd, file,
		       O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (c->fd < 0) {
		snprintf(err, errlen, "cannot open the lock %s/%s: %s", run_dir,
			 file, strerror(errno));
		goto fail;
	}
	while (flock(c->fd, LOCK_EX | LOCK_NB)) {
		if (errno == EINTR)
			continue;
		if (errno != EWOULDBLOCK) {
			snprintf(err, errlen, "cannot lock %s/%s: %s", run_dir,
				 file, strerror(errno));
			goto fail;
		}
		holder_of(c->fd, holder, sizeof(holder));
		n = sscanf(holder, "%ld %63[^\n]", &pid, me);
		/* c->bhtune: "bhtune.ko's parameters", plural */
		if (n == 2)
			snprintf(err, errlen,
				 "%s %s being changed by another bhscope (pid %ld, %s); one tuner at a time: try again when it ends",
				 c->what, c->bhtune ? "are" : "is", pid, me);
		else
			snprintf(err, errlen,
				 "%s %s being changed by another bhscope; one tuner at a time: try again when it ends",
				 c->what, c->bhtune ? "are" : "is");
		goto fail;
	}
	n = snprintf(me, sizeof(me), "%ld %s\n", (long)getpid(), by);
	/* Only for the message of a refused claimer: best effort. */
	if (ftruncate(c->fd, 0) || pwrite(c->fd, me, n, 0) != n)
		(void)0;
	return 0;
fail:
	tunables_lock_release(c);
	return -1;
}

int tunables_lock_journal(struct tunables_claim *c, unsigned int major,
			  unsigned int minor, const char *devname,
			  const char *by, char *err, size_t errlen)
{
	memset(c, 0, sizeof(*c));
	snprintf(c->name, sizeof(c->name), "journal-%u:%u", major, minor);
	snprintf(c->what, sizeof(c->what), "the journal of %s (%u:%u)",
		 devname && devname[0] ? devname : "device", major, minor);
	return claim(c, by, err, errlen);
}

int tunables_lock_bhtune(struct tunables_claim *c, const char *by,
			 char *err, size_t errlen)
{
	memset(c, 0, sizeof(*c));
	c->bhtune = true;
	snprintf(c->name, sizeof(c->name), "bhtune");
	snprintf(c->what, sizeof(c->what), "bhtune.ko's parameters");
	return claim(c, by, err, errlen);
}

void tunables_lock_release(struct tunables_claim *c)
{
	if (c->fd >= 0)
		close(c->fd);	/* the lock goes with the last descriptor */
	if (c->dirfd >= 0)
		close(c->dirfd);
	c->fd = c->dirfd = -1;
}

static void state_file(const struct tunables_claim *c, char *buf, size_t len)
{
	snprintf(buf, len, "%s.state", c->name);
}

int tunables_lock_save(const struct tunables_claim *c,
		       struct tunables_saved *s, const char *by, char *err,
		       size_t errlen)
{
	char file[64], text[512];
	size_t n = 0;

	s->pid = getpid();
	snprintf(s->by, sizeof(s->by), "%s", by);
	n += snprintf(text + n, sizeof(text) - n,
		      "# bhscope: the values %s found, to put back if it dies first\n"
		      "pid %ld\nby %s\n", by, s->pid, s->by);
	if (s->v.batch)
		n += snprintf(text + n, sizeof(text) - n,
			      "min_batch_us %ld\nmax_batch_us %ld\n", s->v.min_us,
			      s->v.max_us);
	if (s->v.lru)
		n += snprintf(text + n, sizeof(text) - n, "lru_size %ld\n",
			      s->v.lru_size);
	state_file(c, file, sizeof(file));
	if (!atomic_file_write(c->dirfd, file, text, n, ATOMIC_FILE_SYNC, err,
			       errlen))
		return 0;
	/* atomic_file's reason names the file relative to the directory */
	snprintf(err + strlen(err), errlen - strlen(err), " (in %s)", run_dir);
	return -1;
}

static int parse_state(FILE *f, struct tunables_saved *s)
{
	char line[128], key[32], rest[64];
	char *end;
	long v;

	memset(s, 0, sizeof(*s));
	while (fgets(line, sizeof(line), f)) {
		if (line[0] == '#')
			continue;
		if (sscanf(line, "%31s %63[^\n]", key, rest) != 2)
			return -1;
		if (!strcmp(key, "by")) {
			snprintf(s->by, sizeof(s->by), "%.31s", rest);
			continue;
		}
		errno = 0;
		v = strtol(rest, &end, 10);
		if (errno || end == rest || *end)
			return -1;
		if (!strcmp(key, "pid"))
			s->pid = v;
		else if (!strcmp(key, "min_batch_us"))
			s->v.min_us = v, s->v.batch = true;
		else if (!strcmp(key, "max_batch_us"))
			s->v.max_us = v, s->v.batch = true;
		else if (!strcmp(key, "lru_size"))
			s->v.lru_size = v, s->v.lru = true;
		else
			return -1;
	}
	return ferror(f) ? -1 : 0;
}

int tunables_lock_saved(const struct tunables_claim *c,
			struct tunables_saved *s, char *err, size_t errlen)
{
	char file[64];
	FILE *f;
	int fd, ret;

	state_file(c, file, sizeof(file));
	fd = openat(c->dirfd, file, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0 && errno == ENOENT)
		return 0;
	f = fd >= 0 ? fdopen(fd, "r") : NULL;
	if (!f) {
		snprintf(err, errlen, "cannot read %s/%s: %s", run_dir, file,
			 strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	ret = parse_state(f, s);
	fclose(f);
	if (ret) {
		snprintf(err, errlen,
			 "%s/%s is not a state file bhscope wrote; look at it, remove it and check %s by hand",
			 run_dir, file, c->what);
		return -1;
	}
	return 1;
}

void tunables_lock_drop(const struct tunables_claim *c)
{
	char file[64];

	state_file(c, file, sizeof(file));
	if (c->dirfd >= 0)
		unlinkat(c->dirfd, file, 0);
}

void tunables_lock_describe(const struct tunables_saved *s, char *buf,
			    size_t len)
{
	size_t n = 0;

	buf[0] = '\0';
	if (s->v.lru)
		n = snprintf(buf, len, "lru_size %ld", s->v.lru_size);
	if (s->v.batch && n < len)
		snprintf(buf + n, len - n, "%sbatch times %ld/%ld us",
			 n ? ", " : "", s->v.min_us, s->v.max_us);
	if (!buf[0])
		snprintf(buf, len, "nothing");
}

void tunables_lock_note(const struct tunables_claim *c,
			const struct tunables_saved *s)
{
	char what[128];

	tunables_lock_describe(s, what, sizeof(what));
	errmsg("%s: put back %s, left changed by a bhscope %s (pid %ld) that ended before it could",
	       c->what, what, s->by[0] ? s->by : "tuner", s->pid);
}
