// SPDX-License-Identifier: GPL-2.0
#include <dirent.h>
#include <stdio.h>
#include <string.h>

#include "serve/serve_devices.h"

int serve_devices_jbd2_names(const char *entry,
			     char names[2][SERVE_DEVNAME_LEN])
{
	const char *dash = strrchr(entry, '-');
	size_t digits;

	if (strlen(entry) >= SERVE_DEVNAME_LEN)
		return 0;
	strcpy(names[0], entry);
	if (!dash || dash == entry)
		return 1;
	digits = strspn(dash + 1, "0123456789");
	if (!digits || dash[1 + digits])
		return 1;
	memcpy(names[1], entry, dash - entry);
	names[1][dash - entry] = '\0';
	return 2;
}

/* The dev_t of a block device by kernel name, 0 when there is none. */
static uint32_t kdev_of(const char *name)
{
	unsigned int major, minor;
	char path[256];
	FILE *f;
	int n;

	if (!*name || strchr(name, '/') || !strcmp(name, ".") ||
	    !strcmp(name, ".."))
		return 0;
	snprintf(path, sizeof(path), "/sys/class/block/%s/dev", name);
	f = fopen(path, "r");
	if (!f)
		return 0;
	n = fscanf(f, "%u:%u", &major, &minor);
	fclose(f);
	if (n != 2)
		return 0;
	return BHSCOPE_KDEV(major, minor);
}

const struct serve_dev *serve_devices_find(const struct serve_devices *d,
					   uint32_t kdev)
{
	for (int i = 0; i < d->nr; i++)
		if (d->dev[i].kdev == kdev)
			return &d->dev[i];
	return NULL;
}

static void add(struct serve_devices *d, const struct serve_config *cfg,
		const char *name, uint32_t kdev, bool journal)
{
	struct serve_dev *dev = (struct serve_dev *)serve_devices_find(d, kdev);

	if (dev) {
		dev->journal |= journal;
		return;
	}
	if (d->nr == BHSCOPE_MAX_DEVS)
		return;
	dev = &d->dev[d->nr++];
	dev->kdev = kdev;
	dev->journal = journal;
	strcpy(dev->name, name);	/* both SERVE_DEVNAME_LEN */
	dev->selected = serve_config_selects(cfg, name, kdev);
}

/* Adds the devices that dir's entries name; false when dir is unreadable. */
static bool scan_dir(const char *dir, struct serve_devices *d,
		     const struct serve_config *cfg, bool jbd2)
{
	DIR *dp = opendir(dir);
	struct dirent *e;

	if (!dp)
		return false;
	while ((e = readdir(dp))) {
		char names[2][SERVE_DEVNAME_LEN];
		int n = 1;

		if (e->d_name[0] == '.' || strlen(e->d_name) >= SERVE_DEVNAME_LEN)
			continue;
		if (jbd2)
			n = serve_devices_jbd2_names(e->d_name, names);
		else
			strcpy(names[0], e->d_name);
		for (int i = 0; i < n; i++) {
			uint32_t kdev = kdev_of(names[i]);

			if (kdev) {
				add(d, cfg, names[i], kdev, jbd2);
				break;
			}
		}
	}
	closedir(dp);
	return true;
}

void serve_devices_scan(struct serve_devices *d, const struct serve_config *cfg)
{
	bool jbd2_ok, ext4_ok;

	d->nr = 0;
	/*
	 * A kernel without ext4 has no /proc/fs/ext4 and one that never
	 * loaded jbd2 no /proc/fs/jbd2; either alone is a complete answer.
	 */
	jbd2_ok = scan_dir("/proc/fs/jbd2", d, cfg, true);
	ext4_ok = scan_dir("/proc/fs/ext4", d, cfg, false);
	d->ok = jbd2_ok || ext4_ok;
}
