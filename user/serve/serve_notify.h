/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Readiness and reload notifications to systemd (Type=notify), without
 * libsystemd: sd_notify(3)'s datagram protocol, so that a static bhscope
 * needs no more libraries.
 */
#ifndef BHSCOPE_SERVE_NOTIFY_H
#define BHSCOPE_SERVE_NOTIFY_H

/*
 * Sends STATE ("READY=1", "STOPPING=1", ...) to $NOTIFY_SOCKET. Returns 0
 * when sent or when no service manager asked for it (no $NOTIFY_SOCKET),
 * else -errno.
 */
int serve_notify(const char *state);

/* RELOADING=1 with the MONOTONIC_USEC= that systemd 253+ wants with it. */
int serve_notify_reloading(void);

#endif /* BHSCOPE_SERVE_NOTIFY_H */
