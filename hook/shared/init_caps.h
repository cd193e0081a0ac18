/* The init's capability and NO_NEW_PRIVS decision, apart from its reading:
 * what the process holds (read by hook/init/caps.c from libcap, prctl and
 * /proc) and what the init was asked (its options) go in; what to drop, set
 * and raise, and what every thread must end with, come out, or a refusal with
 * its reason. Pure: no system call, no heap, no printing, so the static init
 * links it and tests/unit/test_init_caps.c drives it with a table.
 *
 * The rules are the kernel's (security/commoncap.c cap_capset,
 * PR_CAPBSET_DROP, PR_CAP_AMBIENT_RAISE) and runc's order (gocapability's
 * Apply: bounding set first, then capset of permitted/effective/inheritable,
 * then ambient), checked here so that a refusal comes before any filter. */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "shared/capsets.h"
#include "shared/error.h"

/* What the process holds when the init starts: the read. */
struct tsync_init_caps_held {
        int last_cap;                      /* the kernel's last capability (at most 63) */
        uint64_t sets[TSYNC_CAPSET_COUNT]; /* each set, bits up to last_cap */
        bool no_ambient;                   /* the kernel has no ambient set (gVisor: PR_CAP_AMBIENT is EINVAL) */
        bool nnp;                          /* NO_NEW_PRIVS is set */
        bool nnp_shown;                    /* /proc/self/status has a NoNewPrivs line (or cannot tell) */
        int securebits;                    /* PR_GET_SECUREBITS; -1: the kernel has none (gVisor) */
};

/* What the init was asked: its options, the lists already parsed. */
struct tsync_init_caps_opts {
        bool given[TSYNC_CAPSET_COUNT];    /* --bounding ... --ambient was given */
        uint64_t want[TSYNC_CAPSET_COUNT]; /* and its capabilities */
        bool no_new_privs;                 /* --no-new-privs: the config's noNewPrivileges */
        bool allow_nnp;                    /* --allow-nnp: NO_NEW_PRIVS may be set to load */
        bool exec_once;                    /* --exec-once: no set may hold CAP_SYS_PTRACE */
        bool filters;                      /* at least one filter is loaded */
};

/* The decision: what to act on, and what every thread must show at the end. */
struct tsync_init_caps_plan {
        uint64_t bounding_drop; /* bits to PR_CAPBSET_DROP */
        bool capset;            /* capset expect[PERMITTED/EFFECTIVE/INHERITABLE] (they differ from the held) */
        bool ambient;           /* clear the ambient set, then raise amb_raise */
        uint64_t amb_raise;
        bool set_nnp;           /* set NO_NEW_PRIVS before loading */
        bool caps_after_filter; /* loading needs the lent CAP_SYS_ADMIN: the main thread changes P/E/I/A after it */
        uint64_t expect[TSYNC_CAPSET_COUNT]; /* every thread's sets at the end: what the workload is handed */
        bool expect_nnp;                     /* every thread's NO_NEW_PRIVS at the end */
};

/* What the init says as warnings (it goes on): filled whether or not the
 * decision refuses, since the first two come before a later refusal. */
struct tsync_init_caps_warnings {
        bool no_ambient;          /* --ambient asked for capabilities on a kernel without the set: left empty */
        bool nnp_unasked;         /* NO_NEW_PRIVS set without being asked, by a kernel that shows no NoNewPrivs */
        uint64_t amb_unraisable;  /* asked in --ambient, cannot be raised: left out */
        bool amb_raise_forbidden; /* ... because of SECBIT_NO_CAP_AMBIENT_RAISE (else: not permitted and inheritable) */
};

/* Decides; 0 and *ret, or -EPERM with err's message "<what>: <why>" (what:
 * "capabilities", "no_new_privs", "seccomp", "--exec-once"), the init's one
 * line. *warnings is filled either way (never NULL). */
int tsync_init_caps_decide(const struct tsync_init_caps_held *held, const struct tsync_init_caps_opts *opts,
                           struct tsync_init_caps_plan *ret, struct tsync_init_caps_warnings *warnings,
                           struct tsync_err *err);
