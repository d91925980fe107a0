// SPDX-License-Identifier: GPL-2.0
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "bhscope.h"
#include "lib/cli.h"
#include "lib/input_file.h"
#include "serve/serve_config.h"

void serve_config_defaults(struct serve_config *c)
{
	memset(c, 0, sizeof(*c));
	c->interval_s = SERVE_DEFAULT_INTERVAL;
}

static int parse_bool(const char *s, bool *out)
{
	static const char *const yes[] = { "yes", "true", "on", "1" };
	static const char *const no[] = { "no", "false", "off", "0" };

	for (size_t i = 0; i < sizeof(yes) / sizeof(*yes); i++) {
		if (!strcasecmp(s, yes[i])) {
			*out = true;
			return 0;
		}
		if (!strcasecmp(s, no[i])) {
			*out = false;
			return 0;
		}
	}
	return -1;
}

static int add_device(struct serve_config *c, const char *dev, char *err,
		      size_t errlen)
{
	if (!strncmp(dev, "/dev/", 5))
		dev += 5;
	if (!*dev || strlen(dev) >= sizeof(c->devices[0])) {
		snprintf(err, errlen, "invalid device '%.80s'", dev);
		return -1;
	}
	if (c->nr_devices == SERVE_MAX_FILTER) {
		snprintf(err, errlen, "too many devices (at most %d)",
			 SERVE_MAX_FILTER);
		return -1;
	}
	snprintf(c->devices[c->nr_devices++], sizeof(c->devices[0]), "%s", dev);
	return 0;
}

int serve_config_set(struct serve_config *c, unsigned int *set,
		     const char *key, const char *value, char *err,
		     size_t errlen)
{
	if (!strcmp(key, "per-cpu")) {
		if (parse_bool(value, &c->per_cpu)) {
			snprintf(err, errlen, "per-cpu: want yes or no, not '%.80s'",
				 value);
			return -1;
		}
		*set |= SERVE_SET_PER_CPU;
	} else if (!strcmp(key, "interval")) {
		if (cli_parse_interval(value, &c->interval_s)) {
			snprintf(err, errlen, "interval: want seconds > 0, not '%.80s'",
				 value);
			return -1;
		}
		*set |= SERVE_SET_INTERVAL;
	} else if (!strcmp(key, "textfile")) {
		if (strlen(value) >= sizeof(c->textfile_dir)) {
			snprintf(err, errlen, "textfile: path too long");
			return -1;
		}
		snprintf(c->textfile_dir, sizeof(c->textfile_dir), "%s", value);
		*set |= SERVE_SET_TEXTFILE;
	} else if (!strcmp(key, "device")) {
		if (add_device(c, value, err, errlen))
			return -1;
		*set |= SERVE_SET_DEVICES;
	} else {
		snprintf(err, errlen,
			 "unknown setting '%.80s' (want per-cpu, device, textfile or interval)",
			 key);
		return -1;
	}
	return 0;
}

static char *trim(char *s)
{
	char *end;

	while (isspace((unsigned char)*s))
		s++;
	end = s + strlen(s);
	while (end > s && isspace((unsigned char)end[-1]))
		*--end = '\0';
	return s;
}

int serve_config_parse_line(struct serve_config *c, unsigned int *set,
			    const char *line, char *err, size_t errlen)
{
	char buf[SERVE_CONFIG_MAX_LINE], *key, *value, *eq;

	if (strlen(line) >= sizeof(buf)) {
		snprintf(err, errlen, "line too long (at most %d bytes)",
			 SERVE_CONFIG_MAX_LINE - 1);
		return -1;
	}
	snprintf(buf, sizeof(buf), "%s", line);
	buf[strcspn(buf, "#\n")] = '\0';
	key = trim(buf);
	if (!*key)
		return 0;
	eq = strchr(key, '=');
	if (!eq) {
		snprintf(err, errlen, "want 'key = value', not '%.80s'", key);
		return -1;
	}
	*eq = '\0';
	key = trim(key);
	value = trim(eq + 1);
	/* A quoted value may be empty: textfile = "" */
	if (value[0] == '"' && strlen(value) >= 2 &&
	    value[strlen(value) - 1] == '"') {
		value[strlen(value) - 1] = '\0';
		value++;
	}
	return serve_config_set(c, set, key, value, err, errlen);
}

static int load_file(struct serve_config *c, const char *path, char *err,
		     size_t errlen)
{
	char *text, *line, *next, why[256];
	unsigned int set = 0;
	size_t size;
	int n = 0;

	if (input_file_read(path, SERVE_CONFIG_MAX_BYTES, 0, &text, &size, why,
			    sizeof(why))) {
		snprintf(err, errlen, "cannot read %s: %s", path, why);
		return -1;
	}
	if (strlen(text) != size) {
		snprintf(err, errlen, "%s: holds a NUL byte, not a text file", path);
		free(text);
		return -1;
	}
	for (line = text; *line; line = next) {
		size_t len = strcspn(line, "\n");

		next = line + len + (line[len] == '\n');
		line[len] = '\0';
		n++;
		/* Refused whole: a split line's tail would be read as a setting. */
		if (len >= SERVE_CONFIG_MAX_LINE) {
			snprintf(err, errlen, "%s:%d: line too long (%zu bytes, at most %d)",
				 path, n, len, SERVE_CONFIG_MAX_LINE - 1);
			free(text);
			return -1;
		}
		if (serve_config_parse_line(c, &set, line, why, sizeof(why))) {
			snprintf(err, errlen, "%s:%d: %s", path, n, why);
			free(text);
			return -1;
		}
	}
	free(text);
	return 0;
}

int serve_config_load(struct serve_config *c, const char *path,
		      const struct serve_config *cli, unsigned int cli_set,
		      char *err, size_t errlen)
{
	struct serve_config next;

	serve_config_defaults(&next);
	if (path && load_file(&next, path, err, errlen))
		return -1;
	if (cli_set & SERVE_SET_PER_CPU)
		next.per_cpu = cli->per_cpu;
	if (cli_set & SERVE_SET_INTERVAL)
		next.interval_s = cli->interval_s;
	if (cli_set & SERVE_SET_TEXTFILE)
		memcpy(next.textfile_dir, cli->textfile_dir,
		       sizeof(next.textfile_dir));
	if (cli_set & SERVE_SET_DEVICES) {
		next.nr_devices = cli->nr_devices;
		memcpy(next.devices, cli->devices, sizeof(next.devices));
	}
	*c = next;
	return 0;
}

bool serve_config_selects(const struct serve_config *c, const char *name,
			  uint32_t kdev)
{
	char numbers[32];

	if (!c->nr_devices)
		return true;
	snprintf(numbers, sizeof(numbers), "%u:%u", BHSCOPE_KDEV_MAJOR(kdev),
		 BHSCOPE_KDEV_MINOR(kdev));
	for (int i = 0; i < c->nr_devices; i++)
		if (!strcmp(c->devices[i], name) ||
		    !strcmp(c->devices[i], numbers))
			return true;
	return false;
}

int serve_config_listen_parse(const char *spec, char *host, size_t hostlen,
			      char *port, size_t portlen, char *err,
			      size_t errlen)
{
	const char *colon, *h = spec;
	size_t hlen;
	char *end;
	long p;

	if (spec[0] == '[') {
		const char *close = strchr(spec, ']');

		if (!close || close[1] != ':')
			goto invalid;
		h = spec + 1;
		hlen = close - h;
		colon = close + 1;
	} else {
		colon = strrchr(spec, ':');
		if (!colon || memchr(spec, ':', colon - spec))
			goto invalid;	/* bare IPv6 needs brackets */
		hlen = colon - spec;
	}
	errno = 0;
	p = strtol(colon + 1, &end, 10);
	if (!colon[1] || *end || errno || p < 0 || p > 65535)
		goto invalid;
	if (hlen >= hostlen)
		goto invalid;
	snprintf(host, hostlen, "%.*s", (int)hlen, h);
	snprintf(port, portlen, "%ld", p);
	return 0;
invalid:
	snprintf(err, errlen,
		 "invalid listen address '%s': want ADDR:PORT, [ADDR]:PORT or :PORT, port 0-65535",
		 spec);
	return -1;
}
