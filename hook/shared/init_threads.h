/* The names (comm, in /proc/PID/task/TID/status) of the init's own threads,
 * for the init that sets them and the host that looks for them (status).
 * The init's table of its threads: hook/init/threads.c. */
#pragma once

#define TSYNC_INIT_THREAD_SIGNALS   "tsync-signals"
#define TSYNC_INIT_THREAD_EXEC_ONCE "tsync-exec-once"
#define TSYNC_INIT_THREAD_RECORDER  "tsync-record"
