/* lockdown's command (cmd_lockdown.c: one container) and lockdown --all
 * (lockdown_all.c: every container of the node, each in a child of its own
 * running the one-container path). */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "lockdown/lockdown.h"
#include "plan/plan.h"
#include "status_cli.h"

/* What one container's run came to, as lockdown --all reports it. */
enum lockdown_outcome_kind {
        LOCKDOWN_COVERED,      /* every task proven to carry the layers */
        LOCKDOWN_ALREADY,      /* PID 1 and every task carry them already: nothing done */
        LOCKDOWN_REFUSED,      /* nothing was changed */
        LOCKDOWN_INCOMPLETE,   /* some tasks may carry part of the layers */
        LOCKDOWN_GONE,         /* it stopped before it was taken */
        LOCKDOWN_LEFT_OUT,     /* not taken: node.conf's exclude, or the container lockdown --all runs in */
        LOCKDOWN_WOULD_COVER,  /* --dry-run */
        LOCKDOWN_WOULD_REFUSE, /* --dry-run */
        LOCKDOWN_OUTCOME_COUNT,
};

struct lockdown_outcome {
        enum lockdown_outcome_kind kind;
        bool killed; /* --or-kill killed the container */
        char detail[1024];
};

struct lockdown {
        struct target t;
        struct tsync_plan_programs progs[2]; /* --layers's, then --profile's */
        const struct tsync_program *prog[TSYNC_MAX_LAYERS * 2];
        const char *prog_name[TSYNC_MAX_LAYERS * 2]; /* the layer's name or file, for the record */
        size_t n_prog;
        bool set_nnp, or_kill;
        const char *node_conf; /* the node's policy as read (--node-conf or TSYNC_NODE_CONF): named with its fixes */
        /* lockdown --all's: a container that carries every layer already is
         * left as it is; --dry-run judges and changes nothing. */
        bool only_missing, dry_run;
        struct lockdown_outcome *outcome; /* NULL: one container, said on the terminal alone */
        /* The container's lockdown record (lockdown_record.h): as found, and
         * whether ours, with the new layers, was written (record_begin). */
        char key[64];
        int lock; /* the container's lockdown lock (tsync_lockdown_record_lock), -1 when not held */
        struct tsync_lockdown_record before;
        bool recorded;
        bool init_ours; /* PID 1 is our init: the runtime wrapper can give exec'd processes the layers */
        pid_t parent;   /* the target process's parent (host pid), as status read it */
        /* Thaws and puts the record back should lockdown die (lockdown_guard.c). */
        struct tsync_lockdown_watchdog dog;
};

/* One container, l->t resolved or to be resolved: the run, --or-kill, the
 * record made final. A CLI_EXIT_* code. */
int lockdown_container(struct lockdown *l);

/* lockdown --all's default for --jobs. */
#define LOCKDOWN_ALL_JOBS 4

struct lockdown_all_opts {
        bool json;
        /* --watch: a pass says only what it did (not containers already
         * covered, left out or gone), each line in the system log too. */
        bool quiet;
        unsigned jobs; /* containers taken at once */
        struct tsync_node_find_opts find;
        const char *node_conf;
        const struct tsync_node_policy *policy;
};

/* lockdown --all: l holds the node's layers compiled and the options; every
 * container found is taken in a child of its own (at most o->jobs at once),
 * one line each, a summary. 0 every container covered, already covered,
 * left out or gone; 1 any other. */
int lockdown_all(struct lockdown *l, const struct lockdown_all_opts *o);

/* What a pass saw, for the watch: a container created and not started yet
 * (to look again soon), and the roots scanned (see tsync_node_find_opts). */
struct lockdown_all_seen {
        bool created;
        char **roots;
        size_t n_roots;
        /* The lines the last pass said (quiet), each "ID\tLINE": a pass
         * says again only what changed. */
        char **said;
        size_t n_said;
};
void lockdown_all_seen_clear(struct lockdown_all_seen *s);

/* lockdown --all with what it saw in *seen (may be NULL). */
int lockdown_all_pass(struct lockdown *l, const struct lockdown_all_opts *o, struct lockdown_all_seen *seen);

/* Reads node.conf again and compiles its layers into l (on success only:
 * a policy that cannot be read keeps the layers in force); 0 or -1 (said). */
typedef int (*lockdown_reload_fn)(void *ctx, struct lockdown *l, struct lockdown_all_opts *o);

/* lockdown --all --watch (lockdown_watch.c): a pass, then another whenever
 * node.conf or a profile directory changes (reload first) or a state root
 * gains or loses a container (inotify; a pass every WATCH_RESCAN_S seconds
 * all the same, for roots that appear later), until SIGINT, SIGTERM or
 * SIGHUP: 0. Each action goes to the system log. */
#define LOCKDOWN_WATCH_RESCAN_S 60
int lockdown_watch(struct lockdown *l, struct lockdown_all_opts *o, const char *const *profile_dirs, size_t n_dirs,
                   lockdown_reload_fn reload, void *ctx);
