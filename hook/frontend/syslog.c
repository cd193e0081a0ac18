/* Our lines in the system log as well as on stderr. Podman drops what a hook
 * prints (a refused precreate shows only "exit status 1"), containerd's shim
 * hands the runtime the container's own stdio: the system log is the one
 * place a refusal, or the plan a container got, can always be found
 * (`journalctl -t oci-seccomp-tsync`). syslog(3)'s datagrams, written here
 * because glibc's syslog(3) cannot be pointed at another socket (the tests
 * bind their own) and may block on a full socket: a container's start must
 * never wait for a logger. */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <syslog.h>
#include <time.h>
#include <unistd.h>

#include "frontend/frontend.h"
#include "plan/exec_view.h"
#include "plan/plan.h"
#include "plan/rewrite.h"
#include "shared/cleanup.h"
#include "shared/errnos.h"
#include "util/json.h"

#define SYSLOG_DEFAULT_SOCKET "/dev/log"
#define SYSLOG_IDENT          "oci-seccomp-tsync"
#define SYSLOG_MAX_BYTES      8192

/* The logger's state, the one mutable global HACKING allows: whether lines
 * go to the system log, whether an unreachable one is said (and was), and the
 * container every line names. */
static struct {
        bool enabled;
        bool say_unreachable;
        bool said_unreachable;
        char subject[PATH_MAX + 64];
} logger;

void frontend_syslog_enable(unsigned flags)
{
        logger.enabled = true;
        logger.say_unreachable = flags & FRONTEND_SYSLOG_SAY_UNREACHABLE;
}

void frontend_log_subject(const char *subject)
{
        (void)snprintf(logger.subject, sizeof(logger.subject), "%s", subject ? subject : "");
}

/* A line that does not begin with the subject gets it in front: on a busy
 * host every line must be matched to its container. A path under it (inject's
 * bundle/config.json) names it already. */
static bool names_subject(const char *text)
{
        size_t n = strlen(logger.subject);
        return n == 0 || (strncmp(text, logger.subject, n) == 0 && (text[n] == ':' || text[n] == '/'));
}

/* Once a process, on stderr: where no logger listens, a line sent to it is
 * lost, and an engine that hides stderr leaves nothing at all. A full queue
 * (a logger that is there) is not this. */
static void say_unreachable(const char *path, int e)
{
        if (!logger.say_unreachable || logger.said_unreachable || e == EAGAIN || e == ENOBUFS || e == EINTR)
                return;
        logger.said_unreachable = true;
        fprintf(stderr, "%s: %s%swarning: no system log at %s (%s): these lines reach stderr alone\n", PROGRAM,
                logger.subject, *logger.subject ? ": " : "", path, tsync_errtext(e));
}

void frontend_syslog(int priority, const char *text)
{
        if (!logger.enabled)
                return;
        const char *path = getenv(CLI_SYSLOG_SOCKET_ENV);
        if (!path)
                path = SYSLOG_DEFAULT_SOCKET;
        struct sockaddr_un addr = { .sun_family = AF_UNIX };
        /* Empty: the user said no logger. */
        if (!*path)
                return;
        /* Errors saved around logging: a caller may still read errno. */
        int saved = errno;
        if (strlen(path) >= sizeof(addr.sun_path)) {
                say_unreachable(path, ENAMETOOLONG);
                errno = saved;
                return;
        }
        memcpy(addr.sun_path, path, strlen(path) + 1);
        /* RFC 3164, as glibc's syslog(3) writes it and journald and rsyslog read it. */
        char stamp[32], msg[SYSLOG_MAX_BYTES];
        time_t now = time(NULL);
        struct tm tm;
        if (!localtime_r(&now, &tm) || strftime(stamp, sizeof(stamp), "%b %e %T", &tm) == 0)
                return;
        bool named = names_subject(text);
        int n = snprintf(msg, sizeof(msg), "<%d>%s %s[%d]: %s%s%s", LOG_DAEMON | priority, stamp, SYSLOG_IDENT,
                         (int)getpid(), named ? "" : logger.subject, named ? "" : ": ", text);
        if (n < 0)
                return;
        size_t len = (size_t)n < sizeof(msg) ? (size_t)n : sizeof(msg) - 1;
        /* One datagram, one line: what a config or a path holds forges no other. */
        for (size_t i = 0; i < len; i++)
                if ((unsigned char)msg[i] < 0x20)
                        msg[i] = ' ';
        _cleanup_close_ int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
        /* No logger (no /dev/log in a container, a full queue): stderr still has the line. */
        if (fd < 0 ||
            sendto(fd, msg, len, MSG_DONTWAIT | MSG_NOSIGNAL, (const struct sockaddr *)&addr, sizeof(addr)) < 0)
                say_unreachable(path, errno);
        errno = saved;
}

/* The capabilities the rewrite lends the init (lent), comma-joined into f:
 * those of the lent sets that the original sets lacked; or why they are
 * not known (unknown). */
static void print_lent(FILE *f, const struct tsync_plan *plan, const struct tsync_json *lent, const char *unknown)
{
        if (unknown) {
                fprintf(f, "; lent: unknown (%s)", unknown);
                return;
        }
        if (!lent)
                return;
        const char *names[8];
        size_t n = 0;
        for (size_t s = 0; lent->type == TSYNC_JSON_OBJECT && s < lent->u.object.len; s++) {
                const struct tsync_json *set = lent->u.object.values[s];
                const struct tsync_json *was = tsync_json_get(plan->capabilities, lent->u.object.keys[s]);
                for (size_t i = 0; set->type == TSYNC_JSON_ARRAY && i < set->u.array.len; i++) {
                        const struct tsync_json *v = set->u.array.items[i];
                        if (v->type != TSYNC_JSON_STRING)
                                continue;
                        bool known = false;
                        for (size_t j = 0; was && was->type == TSYNC_JSON_ARRAY && j < was->u.array.len; j++) {
                                const struct tsync_json *w = was->u.array.items[j];
                                known = known ||
                                        (w->type == TSYNC_JSON_STRING && strcmp(w->u.string.ptr, v->u.string.ptr) == 0);
                        }
                        for (size_t j = 0; j < n && !known; j++)
                                known = strcmp(names[j], v->u.string.ptr) == 0;
                        if (!known && n < ARRAY_SIZE(names))
                                names[n++] = v->u.string.ptr;
                }
        }
        fprintf(f, "; lent to the init:");
        for (size_t i = 0; i < n; i++)
                fprintf(f, "%s%s", i ? "," : " ", names[i]);
}

char *frontend_applied_text(const struct tsync_plan *plan, const struct tsync_json *lent, const char *lent_unknown)
{
        char *text = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&text, &len);
        if (!f)
                return NULL;
        fprintf(f, "mode %s; layers", tsync_mode_name(plan->mode));
        for (size_t i = 0; i < plan->n_layers; i++)
                fprintf(f, "%s%s", i ? "," : " ", plan->layers[i]);
        if (plan->n_layers == 0)
                fprintf(f, " none");
        print_lent(f, plan, lent, lent_unknown);
        if (plan->init.exec)
                fprintf(f, "; the init runs the workload in place (--exec)");
        if (plan->init.exec_once)
                fprintf(f, "; exec once (%s)", tsync_errno_name(plan->init.exec_once) ?: "errno");
        if (plan->record.req.output)
                fprintf(f, "; recording to %s", plan->record.req.output);
        if (plan->listener_path)
                fprintf(f, "; notify agent %s", plan->listener_path);
        if (fclose(f) != 0) {
                free(text);
                return NULL;
        }
        return text;
}

void frontend_log_text(const char *where, const char *what, const char *text)
{
        if (!logger.enabled || !text)
                return;
        _cleanup_free_ char *line = NULL;
        if (asprintf(&line, "%s: %s: %s", where, what, text) >= 0)
                frontend_syslog(LOG_INFO, line);
}

static void log_applied(const char *where, const char *what, const struct tsync_plan *plan,
                        const struct tsync_json *lent, const char *lent_unknown)
{
        _cleanup_free_ char *text = frontend_applied_text(plan, lent, lent_unknown);
        frontend_log_text(where, what, text);
}

void frontend_log_applied(const char *where, const char *what, const struct tsync_plan *plan)
{
        if (!logger.enabled)
                return;
        _cleanup_json_ struct tsync_json *lent = NULL;
        struct tsync_err err = { 0 };
        int r = tsync_exec_view_lent_capabilities(plan, &lent, &err);
        log_applied(where, what, plan, lent, r < 0 ? err.msg : NULL);
}

void frontend_log_applied_lent(const char *where, const char *what, const struct tsync_plan *plan,
                               const struct tsync_json *lent)
{
        if (logger.enabled)
                log_applied(where, what, plan, lent, NULL);
}
