// SPDX-License-Identifier: GPL-2.0
#include <sys/utsname.h>
#include <unistd.h>

#include "lib/env.h"
#include "lib/hz.h"
#include "record/record_host.h"

struct json_object *record_host_json(int possible)
{
	struct json_object *o = json_object_new_object();
	struct utsname u;
	int hz = hz_of_running_kernel();

	uname(&u);
	json_object_object_add(o, "hostname", json_object_new_string(u.nodename));
	json_object_object_add(o, "kernel",
			       json_object_new_string(env_kernel_release()));
	json_object_object_add(o, "machine", json_object_new_string(u.machine));
	json_object_object_add(o, "nr_cpus",
			       json_object_new_int(sysconf(_SC_NPROCESSORS_ONLN)));
	json_object_object_add(o, "possible_cpus",
			       possible > 0 ? json_object_new_int(possible) : NULL);
	json_object_object_add(o, "hz", hz > 0 ? json_object_new_int(hz) : NULL);
	return o;
}
