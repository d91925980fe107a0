/* SPDX-License-Identifier: GPL-2.0 */
/*
 * bhscope serve's run-time configuration: what SIGHUP re-reads.
 *
 * The file (--config FILE) holds "key = value" lines named after the long
 * options, '#' starts a comment:
 *
 *   per-cpu = yes            # yes/no, true/false, 1/0
 *   device = loop0           # repeatable: names or MAJOR:MINOR; none = all
 *   textfile = /run/bhscope  # directory; "" turns the textfile off
 *   interval = 15            # seconds between textfile writes and rescans
 *
 * Options given on the command line win over the file, at start and on
 * every reload. --listen and the sources (--jbd2, --lru) are read once.
 *
 * The file must be a regular file of at most 64 KiB (a FIFO, a device or a
 * directory is refused, never waited on or read forever); a line longer
 * than PATH_MAX + 63 bytes is refused, never split.
 */
#ifndef BHSCOPE_SERVE_CONFIG_H
#define BHSCOPE_SERVE_CONFIG_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define SERVE_DEFAULT_PORT	9747
#define SERVE_DEFAULT_LISTEN	"127.0.0.1:9747"
#define SERVE_DEFAULT_INTERVAL	15.0
#define SERVE_TEXTFILE_NAME	"bhscope.prom"
#define SERVE_MAX_FILTER	32	/* device entries */
/* A config file is a regular file of at most this, in lines of at most: */
#define SERVE_CONFIG_MAX_BYTES	(64 * 1024)
#define SERVE_CONFIG_MAX_LINE	(PATH_MAX + 64)

struct serve_config {
	bool per_cpu;
	double interval_s;
	char textfile_dir[PATH_MAX];	/* "" = no textfile */
	int nr_devices;			/* 0 = every device */
	char devices[SERVE_MAX_FILTER][64];
};

/* Which fields a layer sets (the command line over the file). */
enum {
	SERVE_SET_PER_CPU = 1 << 0,
	SERVE_SET_INTERVAL = 1 << 1,
	SERVE_SET_TEXTFILE = 1 << 2,
	SERVE_SET_DEVICES = 1 << 3,
};

void serve_config_defaults(struct serve_config *c);

/*
 * Applies one "key = value" setting; *set gets the field's bit. Returns 0,
 * or -1 with a one-line reason in err.
 */
int serve_config_set(struct serve_config *c, unsigned int *set,
		     const char *key, const char *value, char *err,
		     size_t errlen);

/* Parses one line of a file (blank and comment lines are fine). */
int serve_config_parse_line(struct serve_config *c, unsigned int *set,
			    const char *line, char *err, size_t errlen);

/*
 * Defaults, then the file (when path is set), then the fields of cli that
 * cli_set names. Returns 0, or -1 with "FILE:LINE: reason" or "FILE:
 * reason" in err (which may quote the file: print it with term_safe_error);
 * c is only written on success.
 */
int serve_config_load(struct serve_config *c, const char *path,
		      const struct serve_config *cli, unsigned int cli_set,
		      char *err, size_t errlen);

/* True when the device (kernel name, dev_t) passes the device filter. */
bool serve_config_selects(const struct serve_config *c, const char *name,
			  uint32_t kdev);

/*
 * Splits "ADDR:PORT", "[ADDR6]:PORT" or ":PORT" (every address) into host
 * ("" for every address) and port (0..65535; 0 picks a free one). Returns
 * 0, or -1 with a one-line reason in err.
 */
int serve_config_listen_parse(const char *spec, char *host, size_t hostlen,
			      char *port, size_t portlen, char *err,
			      size_t errlen);

#endif /* BHSCOPE_SERVE_CONFIG_H */
