/* The exec view: where the processes a runtime's `exec` starts in a running
 * container read their capability sets, and how the lent ones are kept out.
 *
 * The rewrite lends the init CAP_SYS_ADMIN and CAP_SETPCAP in
 * process.capabilities (noNewPrivileges false), and exec'd processes get the
 * sets of a config too: runc exec and podman exec read BUNDLE/config.json at
 * exec time, crun exec the copy in its state directory. So the createRuntime
 * hook, after the runtime has read the config, puts the original sets back
 * there; in the bundle it also records the container's id (annotation
 * TSYNC_ANNOTATION_RUNNING) so that its poststop hook, and only its own,
 * lends them again for the next start. */
#pragma once

#include <stdbool.h>
#include <sys/uio.h>

#include "plan/plan.h"
#include "shared/error.h"
#include "util/json.h"

/* Adds what the rewrite lends the init (CAP_SYS_ADMIN, and CAP_SETPCAP unless
 * the bounding set has CAP_SYS_ADMIN already) to every set of caps, a
 * process.capabilities object. */
int tsync_exec_view_lend_sets(struct tsync_json *caps, struct tsync_err *err);

/* The capability sets the rewrite lends the init for plan (process.capabilities
 * as written), or *ret = NULL when it lends nothing: noNewPrivileges, no
 * capabilities, or the sets hold what it lends already. */
int tsync_exec_view_lent_capabilities(const struct tsync_plan *plan, struct tsync_json **ret, struct tsync_err *err);

/* 1 when the rewrite lends the init capabilities for plan (so exec'd
 * processes must be kept from them), 0 when not, -errno. */
int tsync_exec_view_lends(const struct tsync_plan *plan, struct tsync_err *err);

/* config (as inject or precreate wrote it from plan) -> the original sets, and,
 * when id is not NULL, id as the running container. Nothing changes when the
 * rewrite lends nothing. -EBUSY when another container holds the config
 * already, -EPERM when process.capabilities is not what the rewrite wrote. */
int tsync_exec_view_restore(struct tsync_json *config, const struct tsync_plan *plan, const char *id,
                            struct tsync_err *err);

/* The same with lent, plan's lent sets as tsync_exec_view_lent_capabilities
 * gives them (NULL: nothing lent), for a hook that has them already. */
int tsync_exec_view_restore_lent(struct tsync_json *config, const struct tsync_plan *plan,
                                 const struct tsync_json *lent, const char *id, struct tsync_err *err);
/* id as the container running from config (annotation TSYNC_ANNOTATION_RUNNING),
 * after tsync_exec_view_restore without one. */
int tsync_exec_view_mark(struct tsync_json *config, const char *id, struct tsync_err *err);

/* The reverse, when container id is the one recorded: the lent sets come back
 * and the record goes; *ret_changed tells whether config changed. */
int tsync_exec_view_lend(struct tsync_json *config, const struct tsync_plan *plan, const char *id, bool *ret_changed,
                         struct tsync_err *err);
int tsync_exec_view_lend_lent(struct tsync_json *config, const struct tsync_plan *plan, const struct tsync_json *lent,
                              const char *id, bool *ret_changed, struct tsync_err *err);

/* Where, in the text a config was parsed from, the exec view's changes go:
 * taken from the freshly parsed config before tsync_exec_view_restore or
 * _lend changes it. ok: config is fresh from tsync_json_parse with
 * process.capabilities and a non-empty annotations object. */
struct tsync_exec_view_spans {
        bool ok;
        bool partial;                /* the config is tsync_exec_view_scan's: it is never written whole */
        size_t caps_begin, caps_end; /* process.capabilities' value */
        size_t annotations_end;      /* the end of the annotations' last value: a new member goes there */
        size_t running_begin;        /* the running annotation, when there: from the end of the value before it */
        size_t running_end;          /* to the end of its own (0: absent) */
};
void tsync_exec_view_spans(const struct tsync_json *config, struct tsync_exec_view_spans *ret);

/* The hooks' fast read of a config's text src[0..len) (lim as for
 * tsync_json_parse): 1 when the whole text is a document tsync_json_parse
 * accepts with lim and the exec view can splice (ret_spans ok), with *ret a
 * tree of only process.capabilities and annotations (all that
 * tsync_plan_from_config and the exec view read), each as the full tree has
 * it; 0 when not sure of either (the caller parses src in full, which decides
 * and words any refusal); -ENOMEM. Never accepts what the full parse refuses:
 * stricter where that is cheaper (exec_view_scan.c). */
int tsync_exec_view_scan(const char *src, size_t len, const struct tsync_json_limits *lim, struct tsync_json **ret,
                         struct tsync_exec_view_spans *ret_spans, struct tsync_err *err);
/* The text of config, changed by tsync_exec_view_restore (and _mark) or _lend
 * since src[0..len) was parsed into it with spans: src with only the
 * capabilities and the running annotation spliced in (the start of a container
 * pays for no writing of the whole document; capabilities indented as the
 * line they start on, so that a restore and a lend give back the very bytes
 * of a pretty file); the whole of config, pretty, when spans are not ok or
 * config changed in another way (an error for a partial config). NUL-terminated. */
int tsync_exec_view_text(const char *src, size_t len, const struct tsync_exec_view_spans *spans,
                         const struct tsync_json *config, char **ret, size_t *ret_len, struct tsync_err *err);

/* The same text as pieces to write one after the other (tsync_write_atv):
 * src's own bytes where nothing changed, new text where something did, so
 * that a hook does not copy the whole config once more to write it. */
struct tsync_exec_view_pieces {
        struct iovec iov[5]; /* into src, or into owned */
        size_t n;
        char *owned[2]; /* the new text iov points to: freed by _clear */
};
int tsync_exec_view_pieces(const char *src, size_t len, const struct tsync_exec_view_spans *spans,
                           const struct tsync_json *config, struct tsync_exec_view_pieces *ret, struct tsync_err *err);
void tsync_exec_view_pieces_clear(struct tsync_exec_view_pieces *p);
