/* lockdown's record of the layers it added to a running container
 * (lockdown_record.c): one root-only JSON file a container under
 * TSYNC_LOCKDOWN_ROOT (schema/lockdown.schema.json), named by the
 * container's PID 1 (its host pid and start time: never reused while the
 * machine runs, and found alike from a pid, a runtime's `state` or an
 * engine's inspect). lockdown writes it; the runtime wrapper gives its
 * filters to every process it execs into the container (hook/runtime/exec.c);
 * status judges the container by it. Nothing here prints. */
#pragma once

#include <linux/filter.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "plan/plan.h"
#include "shared/error.h"

#define TSYNC_LOCKDOWN_ROOT TSYNC_STATE_ROOT "/lockdown"
/* The init takes 16 filters: the plan's own can be 2 + layers. */
#define TSYNC_LOCKDOWN_MAX_LAYERS 8

struct tsync_lockdown_layer {
        char *name;      /* the profile as given: a name of --layers, or --profile's path */
        char sha256[65]; /* of the program's instructions, as PTRACE_SECCOMP_GET_FILTER shows them */
        uint64_t added;  /* when, seconds since the epoch */
        char *filter;    /* the filter file in base64: what the init's --filter-data takes */
};

struct tsync_lockdown_record {
        struct tsync_lockdown_layer layers[TSYNC_LOCKDOWN_MAX_LAYERS];
        size_t n;
};
void tsync_lockdown_record_clear(struct tsync_lockdown_record *r);

/* The record's name for the container whose PID 1 is host pid init_pid:
 * "PID-STARTTIME" (/proc/PID/stat's starttime). 0 or -errno. */
int tsync_lockdown_record_key(pid_t init_pid, char *buf, size_t size, struct tsync_err *err);

/* Reads root/KEY.json into *ret; none there is an empty record (0). The
 * file and root must be root's (the effective uid's) and writable by it
 * alone: it decides what exec'd processes get. */
int tsync_lockdown_record_read(const char *root, const char *key, struct tsync_lockdown_record *ret,
                               struct tsync_err *err);

/* Appends a layer (name, the program, its load flags) added at time now. */
int tsync_lockdown_record_add(struct tsync_lockdown_record *r, const char *name, const struct sock_filter *insns,
                              size_t len, uint32_t flags, uint64_t now, struct tsync_err *err);

/* Writes r to root/KEY.json atomically, 0600 in a 0700 root made when
 * missing; an empty record removes the file. */
int tsync_lockdown_record_write(const char *root, const char *key, const struct tsync_lockdown_record *r,
                                struct tsync_err *err);

/* One lockdown of a container at a time, from its record's read to its last
 * write (two at once would each write the record without the other's layers,
 * and each seize the other's tasks): an exclusive flock on root/KEY.lock
 * (0600, root's, made with root when missing). wait: until the other one
 * ends; else -EWOULDBLOCK when another holds it. *ret_fd: the lock, for
 * tsync_lockdown_record_unlock. */
int tsync_lockdown_record_lock(const char *root, const char *key, bool wait, int *ret_fd, struct tsync_err *err);
/* Removes root/KEY.lock and lets the lock go (fd < 0: nothing). */
void tsync_lockdown_record_unlock(const char *root, const char *key, int fd);
