/* Every thread the init ever has, in one table: who starts it, what it is
 * called in /proc, how the main thread reaches it, and what it must carry.
 * Each carries every TSYNC filter, exactly the capability sets and
 * NO_NEW_PRIVS the workload is handed, and the securebits the init started
 * with (privilege is per thread, so each makes the transition itself:
 * privs.c walks this table); the main thread alone also carries the
 * recording filter, loaded without TSYNC. The proof (proof.c) reads this
 * table for what each thread must show, and refuses a thread of the table
 * that /proc does not list.
 *
 * All are started before the first filter, so that TSYNC and the proofs see
 * every one, and none after: the list cannot grow while the filters load. A
 * notify agent is no thread of the init: it runs outside the container and
 * gets the listener through createRuntime's relay (agent.c). */
#include <unistd.h>

#include "init.h"
#include "shared/init_threads.h"

static pid_t main_tid(void)
{
        return getpid();
}

static const struct init_thread_def threads[INIT_THREAD_COUNT] = {
        [INIT_THREAD_MAIN] = { .who = "main",
                               .comm = NULL,
                               .started_by = "the runtime: the init's own process",
                               .probe = true,
                               .record_filter = true,
                               .tid = main_tid },
        [INIT_THREAD_SIGNALS] = { .who = "signal",
                                  .comm = TSYNC_INIT_THREAD_SIGNALS,
                                  .started_by =
                                          "flow.c: init_signals_start (signals.c, worker.c), unless in place (--exec)",
                                  .probe = true,
                                  .tid = init_signals_tid,
                                  .run = init_signals_run },
        [INIT_THREAD_EXEC_ONCE] = { .who = "exec-once supervisor",
                                    .comm = TSYNC_INIT_THREAD_EXEC_ONCE,
                                    .started_by = "flow.c: init_execonce_start (execonce.c, worker.c), --exec-once",
                                    .tid = init_execonce_tid,
                                    .run = init_execonce_run },
        [INIT_THREAD_RECORDER] = { .who = "recorder",
                                   .comm = TSYNC_INIT_THREAD_RECORDER,
                                   .started_by = "flow.c: init_record_start (recorder.c, worker.c), a recording filter",
                                   .tid = init_record_tid,
                                   .run = init_record_run },
};

const struct init_thread_def *init_thread(enum init_thread t)
{
        return &threads[t];
}

const struct init_thread_def *init_thread_by_tid(pid_t tid)
{
        for (int t = 0; t < INIT_THREAD_COUNT; t++)
                if (tid > 0 && threads[t].tid() == tid)
                        return &threads[t];
        return NULL;
}
