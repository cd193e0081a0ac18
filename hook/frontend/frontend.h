/* What every front end says and where it finds our parts: the command-line
 * tool (hook/cli: inject, the hook stages, ...) and the runtime wrapper
 * (hook/runtime) link this small library, never each other. The library
 * (the folders before it) decides and never prints; this is where its warnings and errors
 * become our one-line messages, on stderr and in the system log. */
#pragma once

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "plan/stage.h"
#include "shared/error.h"
#include "util/json.h"

enum cli_exit {
        CLI_EXIT_OK = 0,
        CLI_EXIT_FAILED = 1, /* bad input, translation failed, check found errors */
        CLI_EXIT_USAGE = 2,  /* bad command line */
};

#define PROGRAM "oci-seccomp-tsync"
/* The exec view's hook (hook/viewhook), installed beside seccomp-tsync-init:
 * the hook entries of a plan whose hooks keep the exec view alone run it. */
#define TSYNC_VIEW_HOOK "seccomp-tsync-view-hook"

/* Messages (messages.c). Prints "oci-seccomp-tsync: <where>: <message>" on one line. */
void frontend_error(const char *where, const struct tsync_err *err);
/* vasprintf's text, or NULL when memory ran out (the caller frees it). */
char *frontend_vformat(const char *fmt, va_list ap) __attribute__((format(printf, 1, 0)));
void frontend_errorf(const char *where, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void frontend_warnings(const char *where, struct tsync_warnings *w);
/* "oci-seccomp-tsync: <where>: warning: <message>". */
void frontend_warnf(const char *where, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* The system log (syslog.c): once enabled (by the hook stages, inject and the
 * runtime wrapper, which engines run with stderr hidden), every line above
 * goes to syslog(3)'s socket too, ident "oci-seccomp-tsync", facility daemon:
 * errors at LOG_ERR, warnings at LOG_WARNING. The socket is /dev/log, or
 * $TSYNC_SYSLOG_SOCKET (empty: none); without a logger stderr alone has it. */
#define CLI_SYSLOG_SOCKET_ENV "TSYNC_SYSLOG_SOCKET"
/* FRONTEND_SYSLOG_SAY_UNREACHABLE: a process whose stderr an engine may hide
 * (the hook stages, the runtime wrapper) says once on stderr when a line
 * cannot reach the logger (no socket, no one bound to it); never for an
 * empty $TSYNC_SYSLOG_SOCKET, nor for a full queue. */
enum { FRONTEND_SYSLOG_SAY_UNREACHABLE = 1 << 0 };
void frontend_syslog_enable(unsigned flags);
/* The container every logged line names (the id, or what stands for it
 * before there is one: precreate's hostname, inject's bundle): a line that
 * does not begin with "SUBJECT:" gets "SUBJECT: " in front, in the system
 * log only. NULL or "": none. */
void frontend_log_subject(const char *subject);
/* One message (text: what follows "oci-seccomp-tsync: ") at a LOG_* priority. */
void frontend_syslog(int priority, const char *text);
struct tsync_plan;
/* One LOG_INFO line for a container's plan: "<where>: <what>: mode M; layers
 * A,B; lent to the init: CAPS; exec once (ERRNO); recording to PATH; notify
 * agent PATH" (the parts that apply). The system log alone gets it. */
void frontend_log_applied(const char *where, const char *what, const struct tsync_plan *plan);
struct tsync_json;
/* The same line, with the sets lent to the init as the caller already has
 * them (tsync_exec_view_lent_capabilities: NULL when nothing is lent): the
 * exec view's hooks build them once a process. */
void frontend_log_applied_lent(const char *where, const char *what, const struct tsync_plan *plan,
                               const struct tsync_json *lent);
/* What those lines say after "<where>: <what>: " ("mode layer; layers ...;
 * lent to the init: ..."), malloc'ed (NULL: out of memory); inject keeps it
 * for createRuntime's line (plan/views.h), which logs it with frontend_log_text. */
char *frontend_applied_text(const struct tsync_plan *plan, const struct tsync_json *lent, const char *lent_unknown);
void frontend_log_text(const char *where, const char *what, const char *text);

/* A hook stage's first step (views_stage.c): inject's prepared views of
 * bundle (plan/views.h), exchanged under the bundle's lock, createRuntime's
 * line logged. 1 when the bundle has them and the stage is done; 0 when it
 * has none (the stage reads config.json); -1 after saying why not. */
int frontend_views_stage(const char *id, const char *bundle, enum tsync_stage stage);

/* What replace mode leaves without linux.seccomp, said where it is chosen
 * (inject, precreate, the wrapper): processes started with `EXEC` (e.g.
 * "runc exec"), and the config's startContainer hooks, which run in the
 * container before the init loads anything (runc runs them under the profile). */
void frontend_warn_replace(const char *where, const struct tsync_json *config, const char *exec);

/* Processes a plain runtime exec starts carry neither the layers nor exec
 * once, and where Yama does not stop it the workload can take them over
 * (facts/plain_exec.h): one warning, said where the user decides (inject,
 * check, precreate), never by the runtime wrapper, whose execs pass the init. */
size_t frontend_warn_plain_exec(const char *where, size_t n_layers, int exec_once);

/* Where our parts are (paths.c): /proc/self/exe, and the static init found
 * beside it or in ../libexec/oci-seccomp-tsync. */
int frontend_self_path(char *buf, size_t size);
int frontend_find_init(char *buf, size_t size);
/* The compiled-filter cache when none is given: TSYNC_CACHE_DEFAULT_DIR for
 * root (uid 0 of the parent user namespace, not root of a rootless engine's);
 * for anyone else $XDG_CACHE_HOME/oci-seccomp-tsync, else
 * ~/.cache/oci-seccomp-tsync ($HOME, else the passwd entry's home; in buf),
 * else NULL: no cache. */
const char *frontend_default_cache_dir(char *buf, size_t size);

/* The home directory the passwd file (/etc/passwd) gives uid, in buf, or NULL:
 * the first entry of that uid whose line fits buf. */
const char *frontend_passwd_home(const char *passwd, uid_t uid, char *buf, size_t size);

/* Where precreate's recordings wait when no --record-root is given:
 * TSYNC_RECORD_ROOT for root (as above); for a rootless engine's hooks
 * $XDG_DATA_HOME/oci-seccomp-tsync/record, else
 * ~/.local/share/oci-seccomp-tsync/record (home as above; in buf). */
const char *frontend_default_record_root(char *buf, size_t size);
extern const char *const frontend_default_profile_dirs[];
extern const size_t frontend_n_default_profile_dirs;
/* A rootless engine's hooks (anyone but root of the parent user namespace)
 * also look in the user's own profile directory, after the system's:
 * $XDG_CONFIG_HOME/oci-seccomp-tsync/profiles, else
 * ~/.config/oci-seccomp-tsync/profiles (in buf); NULL for root, or when the
 * user has no home to tell. After the system's, so that a name the system
 * has (a node.conf layer) is always the system's profile. */
const char *frontend_user_profile_dir(char *buf, size_t size);

struct tsync_plan_paths;
/* poststop, or the wrapper's delete (messages.c): the plan's recording,
 * if any, becomes its profile (tsync_record_stop), its warnings and error
 * said for id. 0, or -1 after printing. */
int frontend_record_stop(const struct tsync_plan *plan, const struct tsync_plan_paths *o, const char *id,
                         const char *bundle);
