/* inject's two views of a bundle's config, prepared so that a start does no
 * JSON work and syncs nothing (plan/exec_view.h says why there are two).
 *
 * When the plan lends the init capabilities and needs our hooks for nothing
 * else, inject writes, beside config.json, BUNDLE/TSYNC_BUNDLE_VIEWS/ with
 *   lent.json   the lent view, byte for byte config.json as inject wrote it
 *   exec.json   the exec view: the same with the original capability sets
 *   swap.json   the other view: exec.json's bytes while config.json is lent,
 *               lent.json's while a container runs
 *   summary     what the plan applies, for createRuntime's log line
 *   running     while a container runs from the bundle: a symbolic link whose
 *               target is its id
 * all of them synced (file and directory) before config.json takes its new
 * text. createRuntime checks that config.json and swap.json are the lent and
 * the exec view (byte comparisons), records the container (a new symbolic
 * link: EEXIST while another holds the bundle) and exchanges the two names
 * (renameat2 RENAME_EXCHANGE); poststop, for the recorded container alone,
 * exchanges them back and removes the record.
 *
 * Crash model: nothing is written at a start, only names change. Each of the
 * two files is whole and durable since inject, so a crash leaves config.json
 * one of the two views, never an empty or torn file, whichever of the link and
 * the exchange reached the disk. Every state a crash can leave is one of those
 * below, and each is repaired by the poststop of the recorded container (run
 * by `runc delete`, or by hand as `hook poststop`), which is idempotent. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "shared/error.h"

#define TSYNC_BUNDLE_VIEWS  "oci-seccomp-tsync-views"
#define TSYNC_VIEWS_RUNNING "running"

/* What config.json and swap.json hold. */
enum tsync_views_state {
        TSYNC_VIEWS_LENT,  /* config.json the lent view, swap.json the exec view: ready to start */
        TSYNC_VIEWS_EXEC,  /* the exchange happened: a container runs (or ran and its poststop is due) */
        TSYNC_VIEWS_OTHER, /* anything else: config.json edited since inject, or files missing */
};

struct tsync_views {
        int bundle_fd; /* the bundle directory (the caller's, locked by it) */
        int dir_fd;    /* BUNDLE/TSYNC_BUNDLE_VIEWS */
        char *config, *swap, *lent, *exec, *summary;
        size_t config_len, swap_len, lent_len, exec_len;
        mode_t config_mode;
        enum tsync_views_state state;
        char holder[256]; /* the running container's id; "" when none */
};
#define TSYNC_VIEWS_INIT                                                                                               \
        {                                                                                                              \
                .bundle_fd = -1, .dir_fd = -1                                                                          \
        }

/* 1 when bundle_fd holds TSYNC_BUNDLE_VIEWS (a directory, not a link), 0 when
 * it does not, -errno. */
int tsync_views_present(int bundle_fd);

/* A hook stage's look at bundle: 1 with it open and locked (flock) as
 * *ret_fd when it has inject's views; 0 when not (a bundle we cannot open is
 * the config's reader's to report); -errno with err set. */
int tsync_views_open(const char *bundle, int *ret_fd, struct tsync_err *err);

/* 1 when a container holds the views of bundle_fd (the record exists), else 0. */
int tsync_views_held(int bundle_fd);

/* Reads config.json and the views of bundle_fd (bundle names it in messages)
 * into v and classifies them. -ENOENT when there are no views. */
int tsync_views_read(int bundle_fd, const char *bundle, struct tsync_views *v, struct tsync_err *err);
void tsync_views_clear(struct tsync_views *v);

/* Records id as the running container: -EBUSY when one is recorded already
 * (the message names it and how to repair a record whose container is gone). */
int tsync_views_hold(struct tsync_views *v, const char *bundle, const char *id, struct tsync_err *err);
/* Removes the record (nothing when there is none). */
int tsync_views_release(struct tsync_views *v, const char *bundle, struct tsync_err *err);
/* Exchanges config.json and swap.json; v->state follows. */
int tsync_views_exchange(struct tsync_views *v, const char *bundle, struct tsync_err *err);

/* inject: the texts of the two views, and the plan's summary. */
struct tsync_views_text {
        const char *lent, *exec, *summary;
        size_t lent_len, exec_len;
};

/* 1 when the file system of bundle_fd can exchange two names atomically (a
 * probe of two empty files in a fresh directory), 0 when it cannot. */
int tsync_views_supported(int bundle_fd, const char *bundle, struct tsync_err *err);

/* inject, under the bundle's lock: writes the views (durable), then
 * config.json (durable, mode) as the lent view, or as the exec view while
 * `running` holds the bundle (swap.json then the lent view). */
int tsync_views_write(int bundle_fd, const char *bundle, const struct tsync_views_text *t, mode_t mode,
                      struct tsync_err *err);

/* Removes the views directory and what inject put in it (never while a
 * container is recorded: -EBUSY). 0 when there is none. */
int tsync_views_remove(int bundle_fd, const char *bundle, struct tsync_err *err);
