/* oci-seccomp-tsync lockdown --all: the node's layers (node.conf) added to
 * every running container the node's state roots name (hook/node's
 * tsync_node_find), each one that does not carry them yet.
 *
 * Each container is taken in a child of its own that runs the one-container
 * path (lockdown_container: its own tracer, freeze, watchdog, record and lock,
 * so the all-or-nothing promise of `lockdown TARGET` holds for each), at most
 * o->jobs at once: one that stalls to its deadlines holds up only its own
 * slot. A child's lines go to a memfd of its own, shown only when it was not
 * covered; its outcome comes back through shared memory, so that the parent
 * says one line per container, in the order found. */
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syslog.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "lockdown_cli.h"
#include "node/node_conf.h"
#include "node/node_find.h"
#include "shared/cleanup.h"
#include "status/status.h"
#include "status_cli.h"
#include "util/json.h"
#include "util/json_build.h"
#include "util/quote.h"

static const char *const kind_names[LOCKDOWN_OUTCOME_COUNT] = {
        [LOCKDOWN_COVERED] = "covered",
        [LOCKDOWN_ALREADY] = "already covered",
        [LOCKDOWN_REFUSED] = "refused",
        [LOCKDOWN_INCOMPLETE] = "incomplete",
        [LOCKDOWN_GONE] = "gone",
        [LOCKDOWN_LEFT_OUT] = "left out",
        [LOCKDOWN_WOULD_COVER] = "would cover",
        [LOCKDOWN_WOULD_REFUSE] = "would be refused",
};
/* --json's names. */
static const char *const kind_keys[LOCKDOWN_OUTCOME_COUNT] = {
        [LOCKDOWN_COVERED] = "covered",
        [LOCKDOWN_ALREADY] = "already",
        [LOCKDOWN_REFUSED] = "refused",
        [LOCKDOWN_INCOMPLETE] = "incomplete",
        [LOCKDOWN_GONE] = "gone",
        [LOCKDOWN_LEFT_OUT] = "left-out",
        [LOCKDOWN_WOULD_COVER] = "would-cover",
        [LOCKDOWN_WOULD_REFUSE] = "would-refuse",
};

/* One container of the run. */
struct slot {
        const struct tsync_node_container *c;
        char *what;
        const struct tsync_node_exclude *left_out;
        bool skipped; /* not taken (its outcome says why): left out, paused or not started */
        bool self;    /* the container (or pod) lockdown --all runs in: left out */
        pid_t child;  /* 0: not started or reaped */
        int out;      /* the child's lines (a memfd), -1 when none */
};

static volatile sig_atomic_t stop_sig;

static void on_stop(int sig)
{
        stop_sig = sig;
}

/* The child: one container, as `lockdown TARGET` would take it. */
static void __attribute__((noreturn)) child(struct lockdown *l, struct slot *s, struct lockdown_outcome *out)
{
        (void)dup2(s->out, STDOUT_FILENO);
        (void)dup2(s->out, STDERR_FILENO);
        /* Its own signal handling: a SIGINT or SIGTERM forwarded by the
         * parent (or from the terminal) unwinds its run. */
        struct sigaction dfl = { .sa_handler = SIG_DFL };
        (void)sigaction(SIGINT, &dfl, NULL);
        (void)sigaction(SIGTERM, &dfl, NULL);
        (void)sigaction(SIGHUP, &dfl, NULL);
        l->outcome = out;
        l->t.what = s->what;
        l->t.kind = "node";
        l->t.runtime = s->c->format == TSYNC_NODE_FORMAT_RUNC ? "runc" : "crun";
        l->t.root = s->c->root;
        l->t.pid = s->c->pid;
        l->t.config_path = s->c->config ? strdup(s->c->config) : NULL;
        l->lock = -1;
        l->dog = (struct tsync_lockdown_watchdog){ .sock = -1 };
        if (!tsync_node_container_runs(s->c)) {
                out->kind = LOCKDOWN_GONE;
                (void)snprintf(out->detail, sizeof(out->detail), "it stopped before it was taken");
                _exit(CLI_EXIT_OK);
        }
        int code = lockdown_container(l);
        (void)fflush(stdout);
        (void)fflush(stderr);
        _exit(code);
}

static int start(struct lockdown *l, struct slot *s, struct lockdown_outcome *out)
{
        s->out = memfd_create("lockdown-all", MFD_CLOEXEC);
        if (s->out < 0)
                return -errno;
        out->kind = LOCKDOWN_REFUSED;
        (void)snprintf(out->detail, sizeof(out->detail), "its lockdown ended without a word (exit status unknown)");
        (void)fflush(stdout);
        (void)fflush(stderr);
        s->child = fork();
        if (s->child < 0)
                return -errno;
        if (s->child == 0)
                child(l, s, out);
        return 0;
}

/* Waits for any child of the run (false: none is left); forwards a stop
 * signal to every one. */
static bool reap(struct slot *slots, size_t n, size_t *running)
{
        for (;;) {
                int st;
                pid_t p = waitpid(-1, &st, 0);
                if (p < 0 && errno == EINTR) {
                        for (size_t i = 0; stop_sig && i < n; i++)
                                if (slots[i].child > 0)
                                        (void)kill(slots[i].child, stop_sig);
                        continue;
                }
                if (p < 0)
                        return false;
                for (size_t i = 0; i < n; i++)
                        if (slots[i].child == p) {
                                slots[i].child = 0;
                                (*running)--;
                                return true;
                        }
        }
}

/* A child that was not covered: its own lines, on stderr, as it said them. */
static void show_lines(const struct slot *s)
{
        if (s->out < 0)
                return;
        char buf[4096];
        off_t at = 0;
        ssize_t r;
        while ((r = pread(s->out, buf, sizeof(buf), at)) > 0) {
                (void)fwrite(buf, 1, (size_t)r, stderr);
                at += r;
        }
}

static const char *engine_of(const struct slot *s)
{
        return tsync_node_engine_name(s->c->engine);
}

static void row_line(const struct slot *s, const struct lockdown_outcome *out, char *line, size_t size)
{
        /* Names and details may carry text a container's engine took from
         * its author (a pod's names, a comm in a refusal): quoted. */
        _cleanup_free_ char *what = tsync_quote_dup(s->what);
        _cleanup_free_ char *detail = tsync_quote_dup(out->detail);
        (void)snprintf(line, size, "%s (%s %.12s): %s%s%s%s", what ? what : "?", engine_of(s), s->c->id,
                       kind_names[out->kind], detail && detail[0] ? ": " : "", detail ? detail : "",
                       out->killed ? "; killed (--or-kill)" : "");
}

static int json_row(struct tsync_json *arr, const struct slot *s, const struct lockdown_outcome *out)
{
        struct tsync_json *o = tsync_json_new_object();
        if (!o)
                return -ENOMEM;
        int r = tsync_json_set(o, "name", tsync_json_new_string(s->what));
        if (r == 0)
                r = tsync_json_set(o, "id", tsync_json_new_string(s->c->id));
        if (r == 0)
                r = tsync_json_set(o, "engine", tsync_json_new_string(engine_of(s)));
        if (r == 0)
                r = tsync_json_set(o, "pid", tsync_json_new_u64((uint64_t)s->c->pid));
        if (r == 0)
                r = tsync_json_set(o, "result", tsync_json_new_string(kind_keys[out->kind]));
        if (r == 0)
                r = tsync_json_set(o, "detail", tsync_json_new_string(out->detail));
        if (r == 0 && s->left_out)
                r = tsync_json_set(o, "line", tsync_json_new_u64(s->left_out->line));
        if (r == 0)
                r = tsync_json_set(o, "killed", tsync_json_new_bool(out->killed));
        if (r < 0) {
                tsync_json_free(o);
                return r;
        }
        return tsync_json_append(arr, o);
}

/* Which of the summary's counts an outcome is. */
enum tally { T_COVERED, T_ALREADY, T_LEFT_OUT, T_NOT_COVERED, T_GONE, T_COUNT };

static enum tally tally_of(const struct lockdown_outcome *out)
{
        switch (out->kind) {
        case LOCKDOWN_COVERED:
        case LOCKDOWN_WOULD_COVER:
                return T_COVERED;
        case LOCKDOWN_ALREADY:
                return T_ALREADY;
        case LOCKDOWN_GONE:
                return T_GONE;
        case LOCKDOWN_LEFT_OUT:
                return T_LEFT_OUT;
        default:
                return T_NOT_COVERED;
        }
}

/* Whether pid is this process or one of its ancestors: the container the
 * watch itself runs in (a node's DaemonSet), whose freeze would freeze it. */
static bool runs_us(pid_t pid)
{
        pid_t p = getpid();
        for (int depth = 0; p > 1 && depth < 64; depth++) {
                if (p == pid)
                        return true;
                if (tsync_proc_parent(p, &p, NULL) < 0)
                        return false;
        }
        return false;
}

/* What is decided without a child, into out: left out by the node's
 * policy or because lockdown --all runs in it, paused (lockdown never thaws
 * what someone else froze), created and not started (its workload has not
 * run; taken once it runs). */
__attribute__((format(printf, 4, 5))) static void skip(struct slot *s, struct lockdown_outcome *out,
                                                       enum lockdown_outcome_kind kind, const char *fmt, ...)
{
        s->skipped = true;
        out->kind = kind;
        va_list ap;
        va_start(ap, fmt);
        (void)vsnprintf(out->detail, sizeof(out->detail), fmt, ap);
        va_end(ap);
}

static void judge_first(const struct lockdown *l, const struct lockdown_all_opts *o, struct slot *s,
                        struct lockdown_outcome *out)
{
        enum lockdown_outcome_kind refused = l->dry_run ? LOCKDOWN_WOULD_REFUSE : LOCKDOWN_REFUSED;
        s->left_out = node_left_out(o->policy, s->c);
        if (!s->left_out && runs_us(s->c->pid)) {
                s->self = true;
                skip(s, out, LOCKDOWN_LEFT_OUT,
                     "lockdown --all runs in it: a freeze of it would stop lockdown itself (a node's DaemonSet: "
                     "leave it out in node.conf to say so)");
        } else if (s->left_out) {
                skip(s, out, LOCKDOWN_LEFT_OUT, "%s, line %u: %s", o->node_conf, s->left_out->line,
                     s->left_out->reason);
        } else if (s->c->state == TSYNC_NODE_PAUSED) {
                skip(s, out, refused,
                     "paused: lockdown never thaws a container someone else froze; resume it and run lockdown --all "
                     "again");
        } else if (s->c->state == TSYNC_NODE_CREATED) {
                skip(s, out, refused, "created, not started: run lockdown --all again once it runs");
        }
}

static void strings_free(char **v, size_t n)
{
        for (size_t i = 0; i < n; i++)
                free(v[i]);
        free(v);
}

void lockdown_all_seen_clear(struct lockdown_all_seen *s)
{
        strings_free(s->roots, s->n_roots);
        strings_free(s->said, s->n_said);
        *s = (struct lockdown_all_seen){ 0 };
}

/* Whether the last pass said line of container id (quiet). */
static bool said_before(const struct lockdown_all_seen *seen, const char *key)
{
        for (size_t i = 0; seen && i < seen->n_said; i++)
                if (strcmp(seen->said[i], key) == 0)
                        return true;
        return false;
}

int lockdown_all(struct lockdown *l, const struct lockdown_all_opts *o)
{
        return lockdown_all_pass(l, o, NULL);
}

int lockdown_all_pass(struct lockdown *l, const struct lockdown_all_opts *o, struct lockdown_all_seen *seen)
{
        struct tsync_node_container *c = NULL;
        size_t n = 0;
        struct tsync_warnings w = { 0 };
        struct tsync_err err = { 0 };
        struct tsync_node_find_opts find = o->find;
        if (seen) {
                strings_free(seen->roots, seen->n_roots);
                seen->roots = NULL;
                seen->n_roots = 0;
                seen->created = false;
                find.ret_roots = &seen->roots;
                find.ret_n_roots = &seen->n_roots;
        }
        if (tsync_node_find(&find, &c, &n, &w, &err) < 0) {
                frontend_warnings("lockdown --all", &w);
                frontend_error("lockdown --all", &err);
                return CLI_EXIT_FAILED;
        }
        frontend_warnings("lockdown --all", &w);
        struct slot *slots = calloc(n ? n : 1, sizeof(*slots));
        /* Shared with the children, which fill their own. */
        size_t map_len = (n ? n : 1) * sizeof(struct lockdown_outcome);
        struct lockdown_outcome *outs = mmap(NULL, map_len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
        if (!slots || outs == MAP_FAILED) {
                free(slots);
                tsync_node_containers_free(c, n);
                frontend_errorf("lockdown --all", "out of memory");
                return CLI_EXIT_FAILED;
        }
        struct sigaction sa = { .sa_handler = on_stop }, old[3];
        (void)sigemptyset(&sa.sa_mask);
        (void)sigaction(SIGINT, &sa, &old[0]);
        (void)sigaction(SIGTERM, &sa, &old[1]);
        (void)sigaction(SIGHUP, &sa, &old[2]);
        int r = 0;
        size_t running = 0, next = 0;
        for (size_t i = 0; i < n; i++) {
                slots[i] = (struct slot){ .c = &c[i], .what = node_display_name(&c[i]), .out = -1 };
                if (!slots[i].what)
                        r = -ENOMEM;
                else
                        judge_first(l, o, &slots[i], &outs[i]);
                if (seen && c[i].state == TSYNC_NODE_CREATED && !slots[i].left_out)
                        seen->created = true;
        }
        /* The pod it runs in (its sandbox, the DaemonSet's other containers)
         * shares the node's pid namespace or its own: none of it is taken. */
        for (size_t i = 0; r == 0 && i < n; i++)
                if (slots[i].self && c[i].engine == TSYNC_NODE_KUBERNETES && c[i].pod && c[i].pod_namespace)
                        for (size_t k = 0; k < n; k++)
                                if (!slots[k].self && !slots[k].left_out && c[k].engine == TSYNC_NODE_KUBERNETES &&
                                    c[k].pod && c[k].pod_namespace && strcmp(c[k].pod, c[i].pod) == 0 &&
                                    strcmp(c[k].pod_namespace, c[i].pod_namespace) == 0) {
                                        slots[k].self = true;
                                        skip(&slots[k], &outs[k], LOCKDOWN_LEFT_OUT,
                                             "lockdown --all runs in its pod (%s/%s)", c[k].pod_namespace, c[k].pod);
                                }
        /* Containers taken at most o->jobs at once, in the order found. */
        while (r == 0 && (next < n || running)) {
                while (!stop_sig && next < n && running < o->jobs) {
                        struct slot *s = &slots[next];
                        struct lockdown_outcome *out = &outs[next++];
                        if (s->skipped)
                                continue;
                        int e = start(l, s, out);
                        if (e < 0) {
                                out->kind = LOCKDOWN_REFUSED;
                                (void)snprintf(out->detail, sizeof(out->detail), "its lockdown could not start: %s",
                                               strerror(-e));
                                continue;
                        }
                        running++;
                }
                if (stop_sig && next < n) {
                        for (; next < n; next++)
                                if (!slots[next].skipped) {
                                        outs[next].kind = LOCKDOWN_REFUSED;
                                        (void)snprintf(outs[next].detail, sizeof(outs[next].detail),
                                                       "not taken: lockdown --all was stopped (signal %d)",
                                                       (int)stop_sig);
                                }
                }
                if (running && !reap(slots, n, &running))
                        break;
        }
        (void)sigaction(SIGINT, &old[0], NULL);
        (void)sigaction(SIGTERM, &old[1], NULL);
        (void)sigaction(SIGHUP, &old[2], NULL);

        size_t tally[T_COUNT] = { 0 };
        _cleanup_json_ struct tsync_json *arr = o->json ? tsync_json_new_array() : NULL;
        if (o->json && !arr)
                r = -ENOMEM;
        char **said = NULL;
        size_t n_said = 0, n_new = 0;
        if (o->quiet && n && !(said = calloc(n, sizeof(*said))))
                r = -ENOMEM;
        for (size_t i = 0; r == 0 && i < n; i++) {
                enum tally t = tally_of(&outs[i]);
                tally[t]++;
                char line[2048], *key = NULL;
                if (!o->json)
                        row_line(&slots[i], &outs[i], line, sizeof(line));
                if (o->json) {
                        r = json_row(arr, &slots[i], &outs[i]);
                } else if (!o->quiet) {
                        printf("%s\n", line);
                } else if (t == T_COVERED || t == T_NOT_COVERED || slots[i].self) {
                        /* The watch says a line once, and again only when it changes. */
                        if (asprintf(&key, "%s\t%s", slots[i].c->id, line) < 0) {
                                r = -ENOMEM;
                                break;
                        }
                        if (!said_before(seen, key)) {
                                printf("%s\n", line);
                                frontend_syslog(t == T_COVERED ? LOG_INFO : LOG_WARNING, line);
                                n_new++;
                        }
                        said[n_said++] = key;
                }
                if (t == T_NOT_COVERED && (!o->quiet || !key || !said_before(seen, key)))
                        show_lines(&slots[i]);
        }
        if (seen) {
                strings_free(seen->said, seen->n_said);
                seen->said = said;
                seen->n_said = n_said;
        } else {
                strings_free(said, n_said);
        }
        if (o->json && r == 0) {
                _cleanup_json_ struct tsync_json *top = tsync_json_new_object();
                _cleanup_free_ char *text = NULL;
                size_t len;
                struct tsync_json *layers = tsync_json_new_array();
                for (size_t i = 0; layers && i < o->policy->n_layers && r == 0; i++)
                        r = tsync_json_append(layers, tsync_json_new_string(o->policy->layers[i]));
                if (r < 0 || !top || !layers) {
                        tsync_json_free(layers);
                        r = -ENOMEM;
                } else {
                        r = tsync_json_set(top, "layers", layers);
                }
                if (r == 0)
                        r = tsync_json_set(top, "dryRun", tsync_json_new_bool(l->dry_run));
                if (r == 0)
                        r = tsync_json_set(top, "containers", TAKE_PTR(arr));
                _cleanup_json_ struct tsync_json *sum = r == 0 ? tsync_json_new_object() : NULL;
                static const char *const keys[T_COUNT] = { "covered", "already", "leftOut", "notCovered", "gone" };
                if (r == 0 && !sum)
                        r = -ENOMEM;
                for (size_t k = 0; r == 0 && k < T_COUNT; k++)
                        r = tsync_json_set(sum, keys[k], tsync_json_new_u64(tally[k]));
                if (r == 0)
                        r = tsync_json_set(top, "summary", TAKE_PTR(sum));
                if (r == 0)
                        r = tsync_json_write(top, true, &text, &len, &err);
                if (r == 0)
                        printf("%s\n", text);
        }
        for (size_t i = 0; i < n; i++) {
                free(slots[i].what);
                if (slots[i].out >= 0)
                        (void)close(slots[i].out);
        }
        free(slots);
        (void)munmap(outs, map_len);
        tsync_node_containers_free(c, n);
        if (r < 0) {
                frontend_errorf("lockdown --all", "%s", strerror(-r));
                return CLI_EXIT_FAILED;
        }
        if (!o->json && (!o->quiet || n_new)) {
                char sum[256];
                (void)snprintf(sum, sizeof(sum),
                               "%zu container%s: %zu %s, %zu already covered, %zu left out, %zu not covered, %zu gone",
                               n, n == 1 ? "" : "s", tally[T_COVERED], l->dry_run ? "would be covered" : "covered",
                               tally[T_ALREADY], tally[T_LEFT_OUT], tally[T_NOT_COVERED], tally[T_GONE]);
                printf("%s%s\n", o->quiet ? "lockdown --all: " : "\n", sum);
                if (o->quiet)
                        frontend_syslog(tally[T_NOT_COVERED] ? LOG_WARNING : LOG_INFO, sum);
        }
        (void)fflush(stdout);
        /* --dry-run changed nothing: a container it would cover is not covered yet. */
        bool short_ = tally[T_NOT_COVERED] || (l->dry_run && tally[T_COVERED]);
        return short_ ? CLI_EXIT_FAILED : CLI_EXIT_OK;
}
