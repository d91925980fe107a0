/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The node_exporter textfile collector's file, DIR/bhscope.prom, rewritten
 * atomically: the text goes to a temporary name node_exporter ignores (it
 * reads *.prom only), which is then renamed over the old file, so a reader
 * sees the old file or the new one, never a part.
 */
#ifndef BHSCOPE_SERVE_TEXTFILE_H
#define BHSCOPE_SERVE_TEXTFILE_H

#include <stddef.h>

struct serve_textfile {
	int dirfd;		/* -1 when closed */
	char dir[4096];
};

/*
 * Opens (or reopens, after SIGHUP) the directory. Returns 0, or -1 with a
 * one-line reason in err.
 */
int serve_textfile_open(struct serve_textfile *t, const char *dir, char *err,
			size_t errlen);

/* Replaces DIR/bhscope.prom with data. 0, or -1 with a reason in err. */
int serve_textfile_write(struct serve_textfile *t, const char *data,
			 size_t len, char *err, size_t errlen);

/* Closes the directory; with remove, deletes the file (clean shutdown). */
void serve_textfile_close(struct serve_textfile *t, bool remove);

#endif /* BHSCOPE_SERVE_TEXTFILE_H */
