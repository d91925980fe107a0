// SPDX-License-Identifier: GPL-2.0
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "bhscope.h"
#include "lib/devname.h"

static int parse_numbers(const char *arg, uint32_t *kdev)
{
	unsigned int major, minor;
	char tail;

	if (sscanf(arg, "%u:%u%c", &major, &minor, &tail) != 2)
		return -1;
	if (major >= (1U << 12) || minor >= (1U << BHSCOPE_MINORBITS))
		return -1;
	*kdev = BHSCOPE_KDEV(major, minor);
	return 0;
}

int devname_parse(const char *arg, uint32_t *kdev, int flags, char *err,
		  size_t errlen)
{
	char path[4096];
	struct stat st;

	if (!parse_numbers(arg, kdev)) {
		/* the kernel lists every block device it has there */
		snprintf(path, sizeof(path), "/sys/dev/block/%u:%u",
			 BHSCOPE_KDEV_MAJOR(*kdev), BHSCOPE_KDEV_MINOR(*kdev));
		if ((flags & DEVNAME_ANY_NUMBERS) || !access(path, F_OK))
			return 0;
		snprintf(err, errlen, "unknown device '%s': no block device %s here (%s)",
			 arg, arg, path);
		return -1;
	}
	if (strchr(arg, ':')) {
		snprintf(err, errlen, "invalid device '%s': want a name or MAJOR:MINOR",
			 arg);
		return -1;
	}
	snprintf(path, sizeof(path), "%s%s", arg[0] == '/' ? "" : "/dev/", arg);
	if (stat(path, &st)) {
		snprintf(err, errlen, "unknown device '%s': %s does not exist", arg,
			 path);
		return -1;
	}
	if (!S_ISBLK(st.st_mode)) {
		snprintf(err, errlen, "unknown device '%s': %s is not a block device",
			 arg, path);
		return -1;
	}
	*kdev = BHSCOPE_KDEV(major(st.st_rdev), minor(st.st_rdev));
	return 0;
}

void devname_numbers(uint32_t kdev, char *buf, size_t len)
{
	snprintf(buf, len, "%u:%u", BHSCOPE_KDEV_MAJOR(kdev),
		 BHSCOPE_KDEV_MINOR(kdev));
}

void devname_of(uint32_t kdev, char *buf, size_t len)
{
	char path[64], line[256];
	FILE *f;

	snprintf(path, sizeof(path), "/sys/dev/block/%u:%u/uevent",
		 BHSCOPE_KDEV_MAJOR(kdev), BHSCOPE_KDEV_MINOR(kdev));
	f = fopen(path, "r");
	if (f) {
		while (fgets(line, sizeof(line), f)) {
			if (strncmp(line, "DEVNAME=", 8))
				continue;
			line[strcspn(line, "\n")] = '\0';
			snprintf(buf, len, "%s", line + 8);
			fclose(f);
			return;
		}
		fclose(f);
	}
	devname_numbers(kdev, buf, len);
}
