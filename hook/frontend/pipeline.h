/* A front end's run around the host decision (frontend/prepare.h), said:
 * inject, precreate and the runtime wrapper each read their input, call
 * frontend_prepare, write the config their own way, and end with
 * frontend_written, or frontend_unwritten when the write failed. What they
 * used to spell alike (the warnings and the one error, what a refused start
 * leaves on the host, the closing warnings and the system log's line) is
 * here once, its differences taken from the front end (p->fe). */
#pragma once

#include "frontend/prepare.h"
#include "plan/rewrite.h"
#include "shared/error.h"
#include "util/json.h"

/* tsync_plan_prepare, its warnings said for where (also when refused), then
 * tsync_plan_apply with ro. 0 with *ret filled (tsync_prepared_clear); -1
 * after saying the error for where, with what the apply made on the host
 * removed (tsync_prepared_abandon) and *ret untouched. */
int frontend_prepare(struct tsync_json *config, const struct tsync_prepare_opts *o, const struct tsync_rewrite_opts *ro,
                     const char *where, struct tsync_prepared *ret);

/* The rewritten config could not be written: err said for where, and what
 * the apply made for it removed (tsync_prepared_abandon). Returns -1. */
int frontend_unwritten(const struct tsync_prepared *p, const char *where, const struct tsync_err *err);

/* The rewritten config (config) is written: what the user must hear for
 * where, in this order, replace mode's warnings (frontend_warn_replace,
 * naming the exec that passes by the init under p->fe), a plain exec's
 * (frontend_warn_plain_exec; never the wrapper's, whose execs pass the
 * init), then the system log's line (frontend_log_applied). */
void frontend_written(const struct tsync_prepared *p, const struct tsync_json *config, const char *where);
