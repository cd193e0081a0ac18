#include "plan/rewrite.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plan/exec_view.h"
#include "plan/plan.h"
#include "plan/stage.h"
#include "shared/base64.h"
#include "shared/capnames.h"
#include "shared/capsets.h"
#include "shared/cleanup.h"
#include "shared/errnos.h"
#include "shared/filterfile.h"
#include "shared/init_args.h"
#include "util/json_build.h"

#define HOOK_MARKER "oci-seccomp-tsync"

/* An object member that should be an object, for a message: what it is
 * instead ("nothing" when making it ran out of memory). */
static const char *type_of(const struct tsync_json *v)
{
        return v ? tsync_json_type_name(v->type) : "nothing (out of memory)";
}

static bool is_our_hook(const struct tsync_json *h)
{
        const struct tsync_json *args = tsync_json_get(h, "args");
        return args && args->type == TSYNC_JSON_ARRAY && args->u.array.len > 0 &&
               args->u.array.items[0]->type == TSYNC_JSON_STRING &&
               strcmp(args->u.array.items[0]->u.string.ptr, HOOK_MARKER) == 0;
}

/* A mount at or under TSYNC_CONTAINER_DIR, its destination read as runtimes
 * clean it (repeated and trailing slashes do not count). */
static bool is_our_mount(const struct tsync_json *m)
{
        const struct tsync_json *d = tsync_json_get(m, "destination");
        if (!d || d->type != TSYNC_JSON_STRING)
                return false;
        const char *p = d->u.string.ptr, *want = TSYNC_CONTAINER_DIR;
        for (; *want; want++) {
                while (*want == '/' && p[0] == '/' && p[1] == '/')
                        p++;
                if (*p++ != *want)
                        return false;
        }
        return *p == '\0' || *p == '/';
}

void tsync_rewrite_drop_hooks(struct tsync_json *config)
{
        /* Backwards: a stage list that held only our hook goes (it was ours), and
         * removing it moves only the stages already done. */
        struct tsync_json *hooks = tsync_json_get_mut(config, "hooks");
        for (size_t s = hooks && hooks->type == TSYNC_JSON_OBJECT ? hooks->u.object.len : 0; s-- > 0;) {
                struct tsync_json *list = hooks->u.object.values[s];
                if (list->type != TSYNC_JSON_ARRAY)
                        continue;
                size_t kept = 0, before = list->u.array.len;
                for (size_t i = 0; i < list->u.array.len; i++) {
                        struct tsync_json *h = list->u.array.items[i];
                        if (is_our_hook(h)) {
                                tsync_json_free(h);
                                continue;
                        }
                        list->u.array.items[kept++] = h;
                }
                list->u.array.len = kept;
                if (kept == 0 && before > 0)
                        tsync_json_remove(hooks, hooks->u.object.keys[s]);
        }
}

/* args as tsync_rewrite_hooks_to gives them: [marker, "hook", stage] and --no-sync when old had it. */
static struct tsync_json *view_hook_args(const char *stage, const struct tsync_json *old)
{
        bool no_sync = false;
        for (size_t k = 3; k < old->u.array.len; k++) {
                const struct tsync_json *a = old->u.array.items[k];
                no_sync |= a->type == TSYNC_JSON_STRING && strcmp(a->u.string.ptr, "--no-sync") == 0;
        }
        struct tsync_json *args = tsync_json_new_array();
        int r = args ? tsync_json_append(args, tsync_json_new_string(HOOK_MARKER)) : -ENOMEM;
        if (r == 0)
                r = tsync_json_append(args, tsync_json_new_string("hook"));
        if (r == 0)
                r = tsync_json_append(args, tsync_json_new_string(stage));
        if (r == 0 && no_sync)
                r = tsync_json_append(args, tsync_json_new_string("--no-sync"));
        if (r < 0) {
                tsync_json_free(args);
                return NULL;
        }
        return args;
}

int tsync_rewrite_hooks_to(struct tsync_json *config, const char *path, struct tsync_err *err)
{
        struct tsync_json *hooks = tsync_json_get_mut(config, "hooks");
        for (size_t s = 0; hooks && hooks->type == TSYNC_JSON_OBJECT && s < hooks->u.object.len; s++) {
                struct tsync_json *list = hooks->u.object.values[s];
                for (size_t i = 0; list->type == TSYNC_JSON_ARRAY && i < list->u.array.len; i++) {
                        struct tsync_json *h = list->u.array.items[i];
                        if (!is_our_hook(h))
                                continue;
                        /* tsync_json_set takes (and frees on failure) each value. */
                        int r = tsync_json_set(h, "args",
                                               view_hook_args(hooks->u.object.keys[s], tsync_json_get(h, "args")));
                        if (r == 0)
                                r = tsync_json_set(h, "path", tsync_json_new_string(path));
                        if (r < 0)
                                return tsync_error(err, ENOMEM, "hooks.%s: out of memory", hooks->u.object.keys[s]);
                }
        }
        return 0;
}

/* Undoes an earlier rewrite from the plan it left: back come what the rewrite
 * changed (args, capabilities, the moved seccomp section) and out go our
 * mounts, hooks and annotations. Whether the plan may be believed is decided
 * by the caller (verify_restore). */
static int restore(struct tsync_json *config, const struct tsync_plan *plan, struct tsync_err *err)
{
        struct tsync_json *process = tsync_json_get_object(config, "process");
        if (!process)
                return tsync_error(err, EINVAL, "process: expected object");
        int r = tsync_json_set(process, "args", tsync_json_copy(plan->args));
        /* Without capabilities in the plan nothing was lent: the config's own
         * (absent or null) stay, and verify_restore() checks that they were. */
        if (r == 0 && plan->capabilities)
                r = tsync_json_set(process, "capabilities", tsync_json_copy(plan->capabilities));
        if (r < 0)
                return tsync_error(err, -r, "process: restoring it from the plan: %s", tsync_errtext(-r));
        if (plan->seccomp) {
                struct tsync_json *linux_ = tsync_json_get_object(config, "linux");
                if (!linux_)
                        return tsync_error(err, EINVAL, "linux: expected object, got %s",
                                           type_of(tsync_json_get(config, "linux")));
                r = tsync_json_set(linux_, "seccomp", tsync_json_copy(plan->seccomp));
                if (r < 0)
                        return tsync_error(err, -r, "linux.seccomp: restoring it from the plan: %s", tsync_errtext(-r));
        }

        struct tsync_json *mounts = tsync_json_get_mut(config, "mounts");
        if (mounts && mounts->type == TSYNC_JSON_ARRAY) {
                size_t kept = 0;
                for (size_t i = 0; i < mounts->u.array.len; i++) {
                        struct tsync_json *m = mounts->u.array.items[i];
                        if (is_our_mount(m)) {
                                tsync_json_free(m);
                                continue;
                        }
                        mounts->u.array.items[kept++] = m;
                }
                mounts->u.array.len = kept;
        }
        tsync_rewrite_drop_hooks(config);
        struct tsync_json *annotations = tsync_json_get_mut(config, "annotations");
        tsync_json_remove(annotations, TSYNC_ANNOTATION_PLAN);
        tsync_json_remove(annotations, TSYNC_ANNOTATION_RUNNING);
        return 0;
}

/* One entry of mounts, its keys in the order every rewrite has written them
 * (undo and the exec views compare bytes); NULL options are left out. */
static int append_mount(struct tsync_json *mounts, const char *destination, const char *type, const char *source,
                        const char *const *options, size_t n)
{
        _cleanup_json_ struct tsync_json *m = tsync_json_new_object();
        struct tsync_json *opts = tsync_json_new_array();
        int r = m && opts ? 0 : -ENOMEM;
        if (r == 0)
                r = tsync_json_set(m, "destination", tsync_json_new_string(destination));
        if (r == 0)
                r = tsync_json_set(m, "type", tsync_json_new_string(type));
        if (r == 0)
                r = tsync_json_set(m, "source", tsync_json_new_string(source));
        for (size_t i = 0; r == 0 && i < n; i++)
                if (options[i])
                        r = tsync_json_append(opts, tsync_json_new_string(options[i]));
        if (r == 0)
                r = tsync_json_set(m, "options", TAKE_PTR(opts));
        tsync_json_free(opts);
        if (r == 0)
                r = tsync_json_append(mounts, TAKE_PTR(m));
        return r;
}

static int add_mount(struct tsync_json *mounts, const char *source, const char *destination, bool exec)
{
        const char *o[] = { "bind", "ro", "nosuid", "nodev", exec ? NULL : "noexec" };
        return append_mount(mounts, destination, "bind", source, o, ARRAY_SIZE(o));
}

/* TSYNC_CONTAINER_DIR itself (plan.h says why). runc and crun mount a
 * read-only tmpfs read-write and remount it read-only once every mount is
 * made, so the mount points under it are made first. */
static int add_dir_tmpfs(struct tsync_json *mounts)
{
        static const char size[] = "size=" TSYNC_CONTAINER_DIR_TMPFS_SIZE;
        const char *o[] = { "ro", "nosuid", "nodev", "noexec", size, "mode=0755" };
        return append_mount(mounts, TSYNC_CONTAINER_DIR, "tmpfs", "tmpfs", o, ARRAY_SIZE(o));
}

/* The relay's private directory (TSYNC_CONTAINER_AGENT_DIR): a small tmpfs
 * owned by process.user, whom the init runs as, and no one else. Runtimes
 * give a tmpfs the mode of a mount point that exists already (runc does), so
 * createRuntime checks the mode it finds before its relay listens there. */
static int add_agent_tmpfs(struct tsync_json *mounts, const struct tsync_json *user)
{
        uint64_t uid = 0, gid = 0;
        (void)tsync_json_u64(tsync_json_get(user, "uid"), "uid", &uid, NULL);
        (void)tsync_json_u64(tsync_json_get(user, "gid"), "gid", &gid, NULL);
        char uid_opt[32], gid_opt[32];
        (void)snprintf(uid_opt, sizeof(uid_opt), "uid=%" PRIu64, uid);
        (void)snprintf(gid_opt, sizeof(gid_opt), "gid=%" PRIu64, gid);
        const char *o[] = {
                "nosuid", "nodev", "noexec", "size=" TSYNC_AGENT_TMPFS_SIZE, "mode=0700", uid_opt, gid_opt
        };
        return append_mount(mounts, TSYNC_CONTAINER_AGENT_DIR, "tmpfs", "tmpfs", o, ARRAY_SIZE(o));
}

static int add_hook(struct tsync_json *hooks, enum tsync_stage stage, const struct tsync_rewrite_opts *o,
                    struct tsync_err *err)
{
        const char *name = tsync_stage_name(stage);
        struct tsync_json *list = tsync_json_get_mut(hooks, name);
        if (!list) {
                if (tsync_json_set(hooks, name, tsync_json_new_array()) < 0)
                        return tsync_error(err, ENOMEM, "hooks.%s: out of memory", name);
                list = tsync_json_get_mut(hooks, name);
        }
        if (list->type != TSYNC_JSON_ARRAY)
                return tsync_error(err, EINVAL, "hooks.%s: expected array, got %s", name,
                                   tsync_json_type_name(list->type));
        struct tsync_json *h = tsync_json_new_object();
        struct tsync_json *args = tsync_json_new_array();
        int r = h && args ? 0 : -ENOMEM;
        if (r == 0)
                r = tsync_json_set(h, "path", tsync_json_new_string(o->hook_path));
        if (r == 0)
                r = tsync_json_append(args, tsync_json_new_string(HOOK_MARKER));
        if (r == 0)
                r = tsync_json_append(args, tsync_json_new_string("hook"));
        if (r == 0)
                r = tsync_json_append(args, tsync_json_new_string(name));
        for (size_t i = 0; r == 0 && i < o->n_hook_args; i++)
                r = tsync_json_append(args, tsync_json_new_string(o->hook_args[i]));
        if (r == 0) {
                r = tsync_json_set(h, "args", args);
                args = NULL;
        }
        if (r == 0) {
                r = tsync_json_append(list, h);
                h = NULL;
        }
        tsync_json_free(args);
        tsync_json_free(h);
        if (r < 0)
                return tsync_error(err, -r, "hooks.%s: %s", name, tsync_errtext(-r));
        return 0;
}

/* The init loads its filters without NO_NEW_PRIVS (the config did not ask for
 * it), which needs CAP_SYS_ADMIN; dropping it again from the bounding set
 * needs CAP_SETPCAP. Both are added to every set, so that they survive the
 * runtime's execve for root (bounding) and for other users (ambient); the init
 * gives them back before the workload runs. */
/* The init's option text for one set: the entries runc would take, comma-joined.
 * An entry runc ignores ("sys_admin", "CAP_KILL,CAP_SYS_ADMIN") is left out
 * here, so that no spelling reaches the init that runc would not honour; names
 * this kernel lacks stay, and the init leaves them out with a warning. */
static char *join_caps(const struct tsync_json *set)
{
        char *buf = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&buf, &len);
        if (!f)
                return NULL;
        size_t n = 0;
        for (size_t i = 0; set && set->type == TSYNC_JSON_ARRAY && i < set->u.array.len; i++) {
                const struct tsync_json *v = set->u.array.items[i];
                if (v->type == TSYNC_JSON_STRING && tsync_capname_lookup(v->u.string.ptr, v->u.string.len) >= 0)
                        fprintf(f, "%s%s", n++ ? "," : "", v->u.string.ptr);
        }
        if (n == 0)
                fputs("none", f);
        if (fclose(f) != 0) {
                free(buf);
                return NULL;
        }
        return buf;
}

/* The filters as the init's --filter-data arguments: one base64 text per
 * filter of the plan, in order. */
struct filter_data {
        char *text[TSYNC_MAX_LAYERS + 1];
        size_t n;
};

static void filter_data_clear(struct filter_data *d)
{
        for (size_t i = 0; i < d->n; i++)
                free(d->text[i]);
        d->n = 0;
}

/* The largest filter file's base64 fits one argument (the kernel's
 * MAX_ARG_STRLEN, 32 pages), and all of them together stay under 1 MiB, half
 * the ARG_MAX of the default 8 MiB stack: nothing to check at run time. */
_Static_assert((TSYNC_FILTER_MAX_SIZE + 2) / 3 * 4 < 32 * 4096, "a filter's base64 fits one argument");
_Static_assert((TSYNC_MAX_LAYERS + 1) * ((TSYNC_FILTER_MAX_SIZE + 2) / 3 * 4 + 16) < 1024 * 1024,
               "every filter's base64 fits the init's arguments");

static int encode_filters(const struct tsync_plan *plan, const struct tsync_plan_programs *progs,
                          struct filter_data *ret, struct tsync_err *err)
{
        size_t n = tsync_plan_filter_count(plan);
        if (!progs || progs->n != progs->n_baseline + n)
                return tsync_error(err, EINVAL, "the plan's %zu filters are not compiled", n);
        *ret = (struct filter_data){ 0 };
        for (size_t k = 0; k < n; k++) {
                _cleanup_free_ void *buf = NULL;
                size_t written;
                int r = tsync_plan_encode_filter(progs, k, &buf, &written, err);
                if (r < 0) {
                        filter_data_clear(ret);
                        return r;
                }
                size_t len = tsync_base64_encoded_len((size_t)written);
                if (!(ret->text[k] = malloc(len + 1))) {
                        filter_data_clear(ret);
                        return tsync_error(err, ENOMEM, "out of memory");
                }
                tsync_base64_encode(buf, (size_t)written, ret->text[k]);
                ret->n++;
        }
        return 0;
}

/* The capability sets' lists for the init, freed together. */
struct cap_lists {
        char *text[TSYNC_CAPSET_COUNT];
};

static void cap_lists_free(struct cap_lists *l)
{
        for (size_t s = 0; s < TSYNC_CAPSET_COUNT; s++)
                free(l->text[s]);
}

static int append_arg(void *array, const char *arg)
{
        return tsync_json_append(array, tsync_json_new_string(arg));
}

/* The init's options for plan, by the table of init_args.c (the init parses
 * them with the same table and rules); each option's plan field is named by
 * its row. data: the plan's filters as --filter-data texts
 * (TSYNC_DELIVERY_ARGS), one for each; NULL: filter files' paths in their
 * places (what the table checks is their number). relay: the init reaches
 * createRuntime's relay (a notify agent or a recording). Points into b. */
struct init_opts {
        struct tsync_init_args args;
        char paths[TSYNC_INIT_MAX_FILTERS][64];
        struct cap_lists lists;
};

static void init_opts_free(struct init_opts *b)
{
        cap_lists_free(&b->lists);
}

static int init_opts(const struct tsync_plan *plan, const char *const *data, bool relay, struct init_opts *b,
                     struct tsync_err *err)
{
        b->args = (struct tsync_init_args){
                .exec = plan->init.exec,
                .exec_once = plan->init.exec_once,
                .warn_replace = plan->init.warn_replace,
                .no_new_privs = plan->no_new_privileges,
                /* The init reaches createRuntime's relay, never the agent itself;
                 * a recording's file comes from the relay too. */
                .relay = relay ? TSYNC_CONTAINER_RELAY : NULL,
        };
        size_t n = tsync_plan_filter_count(plan);
        bool in_args = data && plan->delivery == TSYNC_DELIVERY_ARGS;
        if (n > TSYNC_INIT_MAX_FILTERS)
                return tsync_error(err, E2BIG, "process.args: %zu filters, more than the init takes (%d)", n,
                                   TSYNC_INIT_MAX_FILTERS);
        for (size_t i = 0; i < n; i++) {
                (void)snprintf(b->paths[i], sizeof(b->paths[i]), TSYNC_CONTAINER_FILTERS "/%02zu.bpf", i);
                b->args.filters[b->args.n_filters++] =
                        in_args ? (struct tsync_init_filter_arg){ TSYNC_INIT_OPT_FILTER_DATA, data[i] }
                                : (struct tsync_init_filter_arg){ TSYNC_INIT_OPT_FILTER, b->paths[i] };
        }
        /* Every set when the config has capabilities ("none" for an empty one):
         * a set not given is one the init leaves as it is. */
        for (int s = 0; plan->capabilities && s < TSYNC_CAPSET_COUNT; s++) {
                b->lists.text[s] = join_caps(tsync_json_get(plan->capabilities, tsync_capset(s)->json));
                if (!b->lists.text[s])
                        return tsync_error(err, ENOMEM, "out of memory");
                b->args.caps[s] = b->lists.text[s];
        }
        return 0;
}

static int discard_arg(void *ctx, const char *arg)
{
        (void)ctx;
        (void)arg;
        return 0;
}

int tsync_rewrite_check_init_args(const struct tsync_plan *plan, bool relay, struct tsync_err *err)
{
        _cleanup_(init_opts_free) struct init_opts b = { 0 };
        int r = init_opts(plan, NULL, relay, &b, err);
        if (r == 0)
                r = tsync_init_args_write(&b.args, discard_arg, NULL, err);
        if (r == -EINVAL)
                return tsync_error_prefix(err, "the init's command line");
        return r;
}

/* The init's arguments for plan: its options (init_opts), then "--" and the
 * workload's own process.args. data: n_data --filter-data texts, one for
 * each of the plan's filters (TSYNC_DELIVERY_ARGS); relay: as init_opts's. */
static int init_args(const struct tsync_plan *plan, const char *const *data, size_t n_data, bool relay,
                     struct tsync_json **ret, struct tsync_err *err)
{
        size_t n = tsync_plan_filter_count(plan);
        if (plan->delivery == TSYNC_DELIVERY_ARGS && n_data != n)
                return tsync_error(err, EINVAL, "process.args: %zu filters, %zu of them encoded", n, n_data);
        _cleanup_(init_opts_free) struct init_opts b = { 0 };
        int r = init_opts(plan, data, relay, &b, err);
        if (r < 0)
                return r;

        _cleanup_json_ struct tsync_json *a = tsync_json_new_array();
        r = a ? append_arg(a, TSYNC_CONTAINER_INIT) : -ENOMEM;
        if (r == 0) {
                r = tsync_init_args_write(&b.args, append_arg, a, err);
                if (r == -EINVAL)
                        return tsync_error_prefix(err, "the init's command line");
        }
        if (r == 0)
                r = append_arg(a, "--");
        for (size_t i = 0; r == 0 && i < plan->args->u.array.len; i++)
                r = tsync_json_append(a, tsync_json_copy(plan->args->u.array.items[i]));
        if (r < 0)
                return tsync_error(err, -r, "process.args: %s", tsync_errtext(-r));
        *ret = TAKE_PTR(a);
        return 0;
}

static const char *string_or(const struct tsync_json *v, const char *fallback)
{
        return v && v->type == TSYNC_JSON_STRING ? v->u.string.ptr : fallback;
}

/* What execve takes (fs/exec.c, bprm_stack_limits): the path, every argument
 * and environment string with its NUL, and a pointer for each, within a
 * quarter of the soft stack limit the process has then (runc and crun set
 * process.rlimits before they exec the init), at most 6 MiB, at least
 * ARG_MAX (128 KiB). Without RLIMIT_STACK in the config, 8 MiB, the usual
 * limit a runtime inherits. The filters in the init's arguments count: past
 * the limit the runtime's execve of the init fails with E2BIG, which would
 * say nothing of why; refused here, before anything is written. */
#define EXEC_STACK_DEFAULT (8u << 20)
#define EXEC_LIMIT_MAX     (6u << 20)
#define EXEC_LIMIT_MIN     (128u << 10)

static uint64_t exec_stack_limit(const struct tsync_json *process)
{
        const struct tsync_json *rl = tsync_json_get(process, "rlimits");
        for (size_t i = 0; rl && rl->type == TSYNC_JSON_ARRAY && i < rl->u.array.len; i++) {
                const struct tsync_json *l = rl->u.array.items[i];
                uint64_t soft;
                if (strcmp(string_or(tsync_json_get(l, "type"), ""), "RLIMIT_STACK") == 0 &&
                    tsync_json_u64(tsync_json_get(l, "soft"), "soft", &soft, NULL) == 0)
                        return soft;
        }
        return EXEC_STACK_DEFAULT;
}

static size_t strings_size(const struct tsync_json *list, size_t *count)
{
        size_t size = 0;
        for (size_t i = 0; list && list->type == TSYNC_JSON_ARRAY && i < list->u.array.len; i++) {
                const struct tsync_json *v = list->u.array.items[i];
                size += (v->type == TSYNC_JSON_STRING ? v->u.string.len : 0) + 1 + sizeof(void *);
                (*count)++;
        }
        return size;
}

static int check_exec_size(const struct tsync_json *process, const struct tsync_json *new_args, size_t ours,
                           struct tsync_err *err)
{
        uint64_t limit = exec_stack_limit(process) / 4;
        if (limit > EXEC_LIMIT_MAX)
                limit = EXEC_LIMIT_MAX;
        if (limit < EXEC_LIMIT_MIN)
                limit = EXEC_LIMIT_MIN;
        size_t n = 0;
        size_t size = sizeof(TSYNC_CONTAINER_INIT) + strings_size(new_args, &n) +
                      strings_size(tsync_json_get(process, "env"), &n);
        if (size <= limit)
                return 0;
        bool configured = exec_stack_limit(process) != EXEC_STACK_DEFAULT;
        return tsync_error(err, E2BIG,
                           "process.args: the init's command line and environment take %zu bytes (%zu of them the "
                           "filters' data), more than execve takes (%" PRIu64 " bytes, from %s): fewer or smaller "
                           "layers, a smaller environment, or filter files (inject --compile-at-start)",
                           size, ours, limit, configured ? "RLIMIT_STACK in process.rlimits" : "an 8 MiB stack limit");
}

/* The process object's part of the rewrite: the init's arguments in
 * process.args, and the capabilities lent to it. Shared by the container's
 * process (apply_plan) and an exec'd one (tsync_rewrite_process). */
static int rewrite_process(struct tsync_json *process, const struct tsync_plan *plan, const char *const *data,
                           size_t n_data, bool relay, struct tsync_err *err)
{
        _cleanup_json_ struct tsync_json *new_args = NULL;
        int r = init_args(plan, data, n_data, relay, &new_args, err);
        if (r < 0)
                return r;
        size_t ours = 0;
        for (size_t i = 0; i < n_data; i++)
                ours += strlen(data[i]) + 1 + sizeof(void *);
        r = check_exec_size(process, new_args, ours, err);
        if (r < 0)
                return r;
        r = tsync_json_set(process, "args", TAKE_PTR(new_args));
        if (r < 0)
                return tsync_error(err, -r, "process.args: %s", tsync_errtext(-r));
        if (plan->capabilities && !plan->no_new_privileges) {
                r = tsync_exec_view_lend_sets(tsync_json_get_mut(process, "capabilities"), err);
                if (r < 0)
                        return r;
        }
        return 0;
}

int tsync_rewrite_process(struct tsync_json *process, const struct tsync_plan *plan, const char *const *data,
                          size_t n_data, struct tsync_err *err)
{
        int r = tsync_json_expect(process, "process", TSYNC_JSON_OBJECT, err);
        if (r < 0)
                return r;
        if (plan->listener_path || plan->record.req.output)
                return tsync_error(err, EINVAL, "an exec'd process gets neither a notify agent nor a recording");
        return rewrite_process(process, plan, data, n_data, false, err);
}

size_t tsync_rewrite_filter_data(const struct tsync_json *config, const char **ret, size_t max)
{
        const struct tsync_json *args = tsync_json_get(tsync_json_get(config, "process"), "args");
        if (!args || args->type != TSYNC_JSON_ARRAY || args->u.array.len > INT_MAX)
                return 0;
        _cleanup_free_ char **argv = calloc(args->u.array.len + 1, sizeof(*argv));
        if (!argv)
                return 0;
        for (size_t i = 0; i < args->u.array.len; i++)
                argv[i] = (char *)(uintptr_t)string_or(args->u.array.items[i], "");
        /* Read as the init reads them (init_args.c): arguments it would refuse hold none. */
        struct tsync_init_args a;
        if (tsync_init_args_parse((int)args->u.array.len, argv, 0, &a, NULL) != 0)
                return 0;
        size_t n = 0;
        for (size_t i = 0; i < a.n_filters && n < max; i++)
                if (a.filters[i].opt == TSYNC_INIT_OPT_FILTER_DATA)
                        ret[n++] = a.filters[i].text;
        return n;
}

/* The rewrite of a config that carries no plan (any earlier one undone) for
 * plan. start_hook_check refuses lent capabilities that no hook at start takes
 * back from exec'd processes (off only when re-computing what an earlier
 * inject wrote). */
/* agent: the host's listenerPath of the plan's agent filter, or NULL. */
static int apply_plan(struct tsync_json *config, const struct tsync_plan *plan, const struct tsync_rewrite_opts *o,
                      const struct filter_data *data, const char *agent, bool start_hook_check, struct tsync_err *err)
{
        int r;

        /* The relay connects to it from the hook: a relative path would be
         * the runtime's working directory's. */
        if (agent && agent[0] != '/')
                return tsync_error(err, EINVAL, "listenerPath '%s' is not an absolute path", agent);
        /* The relay is our createRuntime hook's to start: an engine
         * runs it from its hooks directory, anyone else needs it in the config. */
        if (agent && !o->hook_path && !o->from_engine)
                return tsync_error(err, EINVAL,
                                   "listenerPath: a notify agent gets the listener from the relay our createRuntime "
                                   "hook starts, and this rewrite adds no hooks");

        /* What undo takes out again must have been ours. */
        const struct tsync_json *old_mounts = tsync_json_get(config, "mounts");
        for (size_t i = 0; old_mounts && old_mounts->type == TSYNC_JSON_ARRAY && i < old_mounts->u.array.len; i++)
                if (is_our_mount(old_mounts->u.array.items[i]))
                        return tsync_error(err, EINVAL,
                                           "mounts[%zu].destination: under %s, which is oci-seccomp-tsync's", i,
                                           TSYNC_CONTAINER_DIR);
        const struct tsync_json *old_hooks = tsync_json_get(config, "hooks");
        for (size_t s = 0;
             !o->from_engine && old_hooks && old_hooks->type == TSYNC_JSON_OBJECT && s < old_hooks->u.object.len; s++) {
                const struct tsync_json *list = old_hooks->u.object.values[s];
                for (size_t i = 0; list->type == TSYNC_JSON_ARRAY && i < list->u.array.len; i++)
                        if (is_our_hook(list->u.array.items[i]))
                                return tsync_error(err, EINVAL,
                                                   "hooks.%s[%zu]: an oci-seccomp-tsync hook in a config without its "
                                                   "plan (inject adds its own)",
                                                   old_hooks->u.object.keys[s], i);
        }
        if (start_hook_check && !o->hook_path && !o->from_engine) {
                _cleanup_json_ struct tsync_json *lent = NULL;
                r = tsync_exec_view_lent_capabilities(plan, &lent, err);
                if (r < 0)
                        return r;
                if (lent)
                        return tsync_error(err, EPERM,
                                           "process.noNewPrivileges is false, so the init would be lent CAP_SYS_ADMIN "
                                           "in process.capabilities, and without our hooks nothing takes it back from "
                                           "processes started with `runc exec` or `crun exec` (they read the same "
                                           "capabilities): set process.noNewPrivileges to true, or inject with hooks");
        }
        struct tsync_json *process = tsync_json_get_mut(config, "process");
        r = tsync_json_expect(process, "process", TSYNC_JSON_OBJECT, err);
        if (r < 0)
                return r;
        struct tsync_json *mounts = tsync_json_get_mut(config, "mounts");
        if (mounts && mounts->type != TSYNC_JSON_ARRAY)
                return tsync_error(err, EINVAL, "mounts: expected array, got %s", tsync_json_type_name(mounts->type));

        /* Decided; now change the config. */
        if (plan->mode == TSYNC_MODE_REPLACE)
                tsync_json_remove(tsync_json_get_mut(config, "linux"), "seccomp");
        bool relay = agent || plan->record.req.output;
        r = rewrite_process(process, plan, (const char *const *)data->text, data->n, relay, err);
        if (r < 0)
                return r;
        if (!mounts) {
                r = tsync_json_set(config, "mounts", tsync_json_new_array());
                mounts = tsync_json_get_mut(config, "mounts");
        }
        if (r == 0)
                r = add_dir_tmpfs(mounts);
        if (r == 0)
                r = add_mount(mounts, o->init_path, TSYNC_CONTAINER_INIT, true);
        if (r == 0 && plan->state_dir)
                r = add_mount(mounts, plan->state_dir, TSYNC_CONTAINER_FILTERS, false);
        /* Nothing of the agent's, nor the recording's directory, is mounted
         * (issue 23): only the tmpfs the relay listens in, for the init alone. */
        if (r == 0 && relay)
                r = add_agent_tmpfs(mounts, tsync_json_get(process, "user"));
        if (r < 0)
                return tsync_error(err, -r, "mounts: %s", tsync_errtext(-r));
        if (o->hook_path) {
                struct tsync_json *hooks = tsync_json_get_object(config, "hooks");
                if (!hooks)
                        return tsync_error(err, EINVAL, "hooks: expected object, got %s",
                                           type_of(tsync_json_get(config, "hooks")));
                r = add_hook(hooks, TSYNC_STAGE_CREATE_RUNTIME, o, err);
                if (r == 0 && !o->no_poststop)
                        r = add_hook(hooks, TSYNC_STAGE_POSTSTOP, o, err);
                if (r < 0)
                        return r;
        }

        _cleanup_free_ char *text = NULL;
        /* The plan records the agent, for createRuntime and for undo. */
        struct tsync_plan recorded = *plan;
        recorded.listener_path = (char *)agent;
        r = tsync_plan_to_json(&recorded, &text, err);
        if (r < 0)
                return r;
        struct tsync_json *annotations = tsync_json_get_object(config, "annotations");
        if (!annotations)
                return tsync_error(err, EINVAL, "annotations: expected object, got %s",
                                   type_of(tsync_json_get(config, "annotations")));
        r = tsync_json_set(annotations, TSYNC_ANNOTATION_PLAN, tsync_json_new_string(text));
        if (r < 0)
                return tsync_error(err, -r, "annotations.%s: %s", TSYNC_ANNOTATION_PLAN, tsync_errtext(-r));
        return 0;
}

const char *tsync_rewrite_init_source(const struct tsync_json *config)
{
        const struct tsync_json *mounts = tsync_json_get(config, "mounts"), *at = NULL;
        for (size_t i = 0; mounts && mounts->type == TSYNC_JSON_ARRAY && i < mounts->u.array.len; i++)
                if (strcmp(string_or(tsync_json_get(mounts->u.array.items[i], "destination"), ""),
                           TSYNC_CONTAINER_INIT) == 0)
                        at = mounts->u.array.items[i];
        return string_or(tsync_json_get(at, "source"), NULL);
}

/* What an earlier inject was given beyond its plan, read back from the config
 * it wrote. A forged value here is harmless: undo strips all of it, and
 * verify_undo() compares the whole config against what it implies. */
struct earlier_opts {
        struct filter_data data; /* copies of the --filter-data texts */
        const char *init_path;
        const char *hook_path;
        const char *hook_args[8];
        size_t n_hook_args;
        bool no_poststop;
};

static void earlier_opts_clear(struct earlier_opts *e)
{
        filter_data_clear(&e->data);
}

static void read_earlier_opts(const struct tsync_json *config, struct earlier_opts *e)
{
        const char *init = tsync_rewrite_init_source(config);
        *e = (struct earlier_opts){ .init_path = init ? init : "" };
        const char *texts[ARRAY_SIZE(e->data.text)];
        size_t n = tsync_rewrite_filter_data(config, texts, ARRAY_SIZE(texts));
        for (size_t i = 0; i < n; i++)
                if ((e->data.text[e->data.n] = strdup(texts[i])))
                        e->data.n++;
        const struct tsync_json *list =
                tsync_json_get(tsync_json_get(config, "hooks"), tsync_stage_name(TSYNC_STAGE_CREATE_RUNTIME));
        for (size_t i = 0; list && list->type == TSYNC_JSON_ARRAY && i < list->u.array.len; i++) {
                const struct tsync_json *h = list->u.array.items[i];
                if (!is_our_hook(h))
                        continue;
                e->hook_path = string_or(tsync_json_get(h, "path"), "");
                const struct tsync_json *a = tsync_json_get(h, "args");
                for (size_t k = 3; k < a->u.array.len && e->n_hook_args < ARRAY_SIZE(e->hook_args); k++) {
                        e->hook_args[e->n_hook_args] = string_or(a->u.array.items[k], "");
                        /* The runtime wrapper's createRuntime, which has no poststop
                         * (tsync_plan_apply); inject never passes it --no-sync, so
                         * an injected config without its poststop stays refused. */
                        if (strcmp(e->hook_args[e->n_hook_args++], "--no-sync") == 0)
                                e->no_poststop = true;
                }
                break;
        }
}

int tsync_rewrite_undo(struct tsync_json *config, bool from_engine, char **ret_running, struct tsync_err *err)
{
        *ret_running = NULL;
        int r = tsync_json_expect(config, "config", TSYNC_JSON_OBJECT, err);
        if (r < 0)
                return r;
        const struct tsync_json *annotations = tsync_json_get(config, "annotations");
        bool has_plan = tsync_json_get(annotations, TSYNC_ANNOTATION_PLAN) != NULL;
        bool has_running = tsync_json_get(annotations, TSYNC_ANNOTATION_RUNNING) != NULL;
        if (from_engine && (has_plan || has_running))
                return tsync_error(err, EPERM,
                                   "annotations.%s: set by oci-seccomp-tsync itself and never by an engine, so "
                                   "whoever chose this container's annotations put it there: refused",
                                   has_plan ? TSYNC_ANNOTATION_PLAN : TSYNC_ANNOTATION_RUNNING);
        if (!has_plan && has_running)
                return tsync_error(err, EINVAL, "annotations.%s: set without %s, which only inject writes: refused",
                                   TSYNC_ANNOTATION_RUNNING, TSYNC_ANNOTATION_PLAN);
        if (!has_plan)
                return 0;

        _cleanup_plan_ struct tsync_plan *plan = NULL;
        r = tsync_plan_from_config(config, &plan, err);
        if (r < 0)
                return r;
        _cleanup_json_ struct tsync_json *found = tsync_json_copy(config);
        if (!found)
                return tsync_error(err, ENOMEM, "out of memory");
        const char *running = NULL;
        if (has_running) {
                r = tsync_json_str(tsync_json_get(tsync_json_get(found, "annotations"), TSYNC_ANNOTATION_RUNNING),
                                   "annotations." TSYNC_ANNOTATION_RUNNING, &running, err);
                if (r < 0)
                        return r;
        }
        _cleanup_(earlier_opts_clear) struct earlier_opts e;
        read_earlier_opts(found, &e);
        r = restore(config, plan, err);
        if (r < 0)
                return r;

        /* The original settings come back from the plan only when the config
         * is exactly what inject wrote from that plan (or that with the exec
         * view of a running container, see exec_view.h): otherwise the plan
         * could hand out what the config itself never gave. */
        _cleanup_json_ struct tsync_json *expected = tsync_json_copy(config);
        if (!expected)
                return tsync_error(err, ENOMEM, "out of memory");
        struct tsync_request req = { .mode = plan->mode,
                                     .layers_by_name = plan->layers_by_name,
                                     .n_layers = plan->n_layers,
                                     .init = plan->init,
                                     .delivery = plan->delivery,
                                     .record = plan->record.req,
                                     .record_dir = plan->record.dir };
        for (size_t i = 0; i < plan->n_layers && i < TSYNC_MAX_LAYERS; i++)
                req.layers[i] = plan->layers[i];
        struct tsync_rewrite_opts eo = { .init_path = e.init_path,
                                         .hook_path = e.hook_path,
                                         .hook_args = e.hook_args,
                                         .n_hook_args = e.n_hook_args,
                                         .no_poststop = e.no_poststop };
        _cleanup_plan_ struct tsync_plan *again = NULL;
        r = tsync_plan_new(expected, &req, plan->state_dir, &again, err);
        if (r == 0)
                r = apply_plan(expected, again, &eo, &e.data, plan->listener_path, false, err);
        if (r < 0)
                return tsync_error_prefix(err, "annotations.%s: not a plan inject wrote", TSYNC_ANNOTATION_PLAN);
        if (running) {
                r = tsync_exec_view_restore(expected, again, running, err);
                if (r < 0)
                        return r;
        }
        char path[256];
        if (!tsync_json_equal(found, expected, path, sizeof(path)))
                return tsync_error(err, EPERM,
                                   "%s: not what inject wrote from the recorded plan (annotations.%s): the config was "
                                   "edited after inject, or the plan is not ours; refused: start again from the "
                                   "original config.json",
                                   path[0] ? path : "config", TSYNC_ANNOTATION_PLAN);
        if (running && !(*ret_running = strdup(running)))
                return tsync_error(err, ENOMEM, "out of memory");
        return 0;
}

int tsync_rewrite_apply(struct tsync_json *config, const struct tsync_plan *plan, const struct tsync_rewrite_opts *o,
                        const char *running, struct tsync_err *err)
{
        struct filter_data data = { 0 };
        int r = plan->delivery == TSYNC_DELIVERY_ARGS ? encode_filters(plan, o->progs, &data, err) : 0;
        if (r == 0)
                r = apply_plan(config, plan, o, &data, o->progs ? o->progs->agent_host_path : NULL, true, err);
        filter_data_clear(&data);
        if (r < 0 || !running)
                return r;
        /* A container from this bundle has not stopped: its exec'd processes
         * still read their capabilities here, so the original ones stay. */
        return tsync_exec_view_restore(config, plan, running, err);
}
