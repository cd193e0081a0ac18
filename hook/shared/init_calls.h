/* The system calls seccomp-tsync-init makes after its first filter is loaded,
 * and whether a stack of filters lets them through. One table for the host
 * (inject, precreate and check, which also know the runtime's own profile) and
 * the init (which knows only the filters it loads).
 *
 * A plain runc or crun start makes essentially one call after its own load:
 * execve. The init makes more when it supervises the workload (fork it, reap
 * it, forward signals), so a profile that works with the runtime may deny
 * them; then the workload runs in place of the init, as PID 1, which needs
 * no more than the runtime's own start.
 *
 * libc only, no heap: the static init uses it before its first filter. */
#pragma once

#include <linux/audit.h>
#include <linux/filter.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "shared/arches.h"
#include "shared/error.h"

/* How the init runs the workload. */
enum tsync_init_route {
        TSYNC_ROUTE_SUPERVISE, /* fork it, stay PID 1: reap, forward signals */
        TSYNC_ROUTE_IN_PLACE,  /* execve it: it is PID 1, as in a plain runtime start */
        TSYNC_ROUTE_NONE,      /* the filters deny even what running in place needs */
};

/* When a call is made, beyond its route. */
enum {
        TSYNC_CALL_ALWAYS = 0,
        TSYNC_CALL_CAPS_AFTER = 1u << 0,   /* without NO_NEW_PRIVS: capabilities change after the load */
        TSYNC_CALL_MORE_FILTERS = 1u << 1, /* loading each filter after the first, under those before it */
        TSYNC_CALL_BEFORE_LOAD = 1u << 2,  /* before the init loads anything: judged by the runtime's profile alone */
        TSYNC_CALL_THREAD = 1u << 3,       /* pthread_create: glibc's clone3 (clone if it is ENOSYS), musl's clone */
        TSYNC_CALL_EXEC_ONCE = 1u << 4,    /* only with an exec-once filter: its supervisor's calls */
        /* The workload child's execve: the one call the exec-once supervisor
         * lets through (CONTINUE), so USER_NOTIF from that filter passes. */
        TSYNC_CALL_WORKLOAD_EXEC = 1u << 5,
        /* Only with an agent filter (listenerPath): reaching createRuntime's
         * relay before the load, handing it the listener right after the
         * agent filter's load and reading its answer. The agent holds the
         * listener from the hand-over on, so its USER_NOTIF counts as answered
         * for every later call of the init (it must CONTINUE what it does not
         * handle, as under runc). */
        TSYNC_CALL_AGENT = 1u << 6,
        /* Only with a recording program (TSYNC_LISTENER_RECORD, the last of
         * the stack): the main thread loads it alone, under every other
         * program, and the recorder thread answers its notifications. The
         * recording's USER_NOTIF lets the init's calls through (CONTINUE). */
        TSYNC_CALL_RECORD = 1u << 7,
        /* The hand-over itself (with TSYNC_CALL_AGENT): made under the agent
         * filter and those loaded before it, while the listener is still the
         * init's alone. The agent's USER_NOTIF here would wait for an agent
         * that has no listener yet, with the init's own copy keeping it open:
         * a refusal, as runc refuses notify on the write its init makes then. */
        TSYNC_CALL_HANDOVER = 1u << 8,
        /* Made while the workload runs (reaping, forwarding signals, the
         * init's exit). An agent's USER_NOTIF counts as no answer here: an
         * answer other than CONTINUE, or ENOSYS once the agent is gone, could
         * no longer stop the start, only break the supervision. */
        TSYNC_CALL_WORKLOAD_RUNS = 1u << 9,
};

struct tsync_init_call {
        const char *name;
        long nr;          /* native numbering */
        uint64_t args[6]; /* what the init passes, where a filter might look */
        unsigned routes;  /* bit (1u << route) for each route that makes it */
        unsigned when;    /* TSYNC_CALL_* */
        const char *why;  /* "start the workload as a child", ... */
};

extern const struct tsync_init_call tsync_init_calls[];
extern const size_t tsync_init_ncalls;

/* One program of the stack the init's threads run under, in load order. */
struct tsync_stack_prog {
        const struct sock_filter *insns;
        size_t len;
        uint32_t listener; /* enum tsync_listener (shared/filterfile.h) */
};

/* The route the init can take under the stack: SUPERVISE when every call of
 * that route is allowed (ALLOW or LOG by every program), else IN_PLACE when
 * every call of that route is, else NONE. The first n_before programs are in
 * place before the init starts (the runtime's own profile, which the host
 * knows and the init does not): they alone judge the calls the init makes
 * before its load. caps_after: the init changes its
 * capabilities after the load (no NO_NEW_PRIVS). *ret_denied: NULL for
 * SUPERVISE, the first supervising call refused for IN_PLACE, the first
 * in-place call refused for NONE; *ret_action: the SECCOMP_RET_* value it got.
 * With an agent program (TSYNC_LISTENER_AGENT) the calls that hand its
 * listener over count too (TSYNC_CALL_HANDOVER: judged by the programs up to
 * and including it, and its USER_NOTIF is a refusal there), and for every
 * later call of the init up to the workload's start its USER_NOTIF counts as
 * answered (the agent holds the listener); not for the calls made while the
 * workload runs (TSYNC_CALL_WORKLOAD_RUNS).
 * With a recording program (the last of the stack, TSYNC_LISTENER_RECORD) the
 * recorder's calls count too, its USER_NOTIF lets every call through (the
 * recorder answers CONTINUE; the other programs still judge them), and there
 * is no IN_PLACE either.
 * With an exec-once program in the stack the supervisor's calls count too,
 * USER_NOTIF counts as a refusal for every call but the workload child's
 * execve, and there is no IN_PLACE: the init must supervise, or it is NONE
 * (*ret_denied the first supervising call refused).
 * -EINVAL if a program cannot be simulated (the message names it), or
 * -EOPNOTSUPP on an architecture whose seccomp_data arch is not known here. */
int tsync_init_route(const struct tsync_stack_prog *progs, size_t n, size_t n_before, bool caps_after,
                     enum tsync_init_route *ret_route, const struct tsync_init_call **ret_denied, uint32_t *ret_action,
                     struct tsync_err *err);

/* "supervise", "in place", "none". */
const char *tsync_init_route_name(enum tsync_init_route route);

/* Why the init cannot supervise, or start, the workload, worded once for the
 * init and the host: "<who> <call> with <action>, which the init needs to
 * <why>", who naming the stack with its verb ("the filters answer", "the
 * profile answers"); denied and action as tsync_init_route gave them (never
 * NULL). and_clause ends it ", and the init needs it to <why>" instead: the
 * init's own refusal, as its documented exit codes word it. Into buf as
 * snprintf writes (cut at size, always terminated); never allocates: the init
 * calls it. Returns buf. */
const char *tsync_init_route_explain(const char *who, const struct tsync_init_call *denied, uint32_t action,
                                     bool and_clause, char *buf, size_t size);
