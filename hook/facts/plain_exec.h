/* Processes a plain runtime exec starts (runc exec, crun exec, podman exec
 * without oci-seccomp-tsync-runtime) never pass our init: they carry only the
 * runtime's own linux.seccomp, not the layers or exec once, and the workload
 * can take them over (same uid, dumpable, same capabilities) by ptrace or
 * /proc/PID/mem unless Yama stops it. Said where the user decides: inject,
 * check and precreate (never the runtime wrapper, whose execs pass the init). */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "shared/error.h"

/* Where the kernel shows Yama's ptrace scope; absent without Yama. */
#define TSYNC_YAMA_PTRACE_SCOPE "/proc/sys/kernel/yama/ptrace_scope"

/* Yama's ptrace scope as the file at path (normally TSYNC_YAMA_PTRACE_SCOPE)
 * says: 0 with *ret_scope, -EBADMSG when it holds no number, or the read's
 * -errno (-ENOENT: no Yama). The one reader for inject's warning and
 * lockdown's refusal. */
int tsync_yama_scope(const char *path, long *ret_scope);

/* Adds one warning to w when n_layers or exec_once ask for more than the
 * baseline and the ptrace scope read from ptrace_scope_path (normally
 * TSYNC_YAMA_PTRACE_SCOPE) is 0, absent, or cannot be read: the risk and the
 * fix (ptrace_scope 1 or more, or the runtime wrapper). Nothing otherwise.
 * 0, or -ENOMEM. */
int tsync_warn_plain_exec(size_t n_layers, int exec_once, const char *ptrace_scope_path, struct tsync_warnings *w);
