/* Recording a profile from what the workload does (issue 13).
 *
 * The plan's last filter is the recording filter (TSYNC_LISTENER_RECORD): every
 * call of every ABI the machine runs returns USER_NOTIF. The init's main thread
 * loads it alone, without TSYNC, after the other filters and before it gives
 * up a lent CAP_SYS_ADMIN, so the workload child inherits it through clone and
 * the init's other threads never carry it. A recorder thread of the init holds
 * the listener and answers every notification with
 * SECCOMP_USER_NOTIF_FLAG_CONTINUE: recording observes, it decides nothing.
 * Notifications from the init's own main thread, and from the child before it
 * announces its execve, are answered but not recorded.
 *
 * The recorder appends each (ABI, syscall) pair the first time it sees it to
 * the record file, one line per write(2), so a container killed with SIGKILL
 * still leaves what it recorded until then:
 *
 *     oci-seccomp-tsync-record 1\n          (TSYNC_RECORD_MAGIC, written by the init at open)
 *     c000003e 59\n                         (AUDIT_ARCH_* in 8 lowercase hex digits, a space,
 *     40000003 11\n                          the syscall number as seccomp_data.nr has it,
 *                                            decimal; x32 numbers keep __X32_SYSCALL_BIT)
 *
 * The hook provides the directory on the host (root's alone, never in the
 * container), where createRuntime's relay creates TSYNC_RECORD_CALLS and
 * hands its fd to the init (`--relay`), and the poststop stage turns the
 * file into a profile at the user's path. The init also takes `--record
 * FILE` when run on its own. */
#pragma once

#define TSYNC_RECORD_MAGIC "oci-seccomp-tsync-record 1\n"
/* One line at most: 8 hex digits, a space, 10 digits, a newline. */
#define TSYNC_RECORD_LINE_MAX 20u
