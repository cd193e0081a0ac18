/* The plan's filters on the host: where their profiles are, what they
 * compile to, and the directory the init reads them from. */
#include "plan/plan.h"

#include <errno.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <seccomp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "facts/config_caps.h"
#include "facts/runtimes.h"
#include "shared/arches.h"
#include "shared/cleanup.h"
#include "shared/errnos.h"
#include "shared/filterfile.h"
#include "translate/cache.h"
#include "translate/source.h"
#include "util/fileio.h"

int tsync_layer_find(const struct tsync_plan_paths *o, const char *name, char **ret_path, struct tsync_err *err)
{
        if (!tsync_layer_name_valid(name))
                return tsync_error(err, EINVAL, "layer '%s': not a profile name (letters, digits, '_', '-', '.')",
                                   name);
        for (size_t d = 0; d < o->n_profile_dirs; d++) {
                const char *suffixes[] = { ".json", "" };
                for (size_t s = 0; s < ARRAY_SIZE(suffixes); s++) {
                        _cleanup_free_ char *path = NULL;
                        if (asprintf(&path, "%s/%s%s", o->profile_dirs[d], name, suffixes[s]) < 0)
                                return tsync_error(err, ENOMEM, "out of memory");
                        struct stat st;
                        /* The name is one component; refuse a symlink planted in a profile directory. */
                        if (lstat(path, &st) < 0)
                                continue;
                        if (!S_ISREG(st.st_mode))
                                return tsync_error(err, EINVAL, "layer '%s': %s is not a regular file", name, path);
                        *ret_path = TAKE_PTR(path);
                        return 0;
                }
        }
        /* Every directory looked in, named: "A", "A or B", "A, B or C". */
        char dirs[1024] = "(no profile directory)";
        size_t at = 0;
        for (size_t d = 0; d < o->n_profile_dirs && at < sizeof(dirs); d++) {
                const char *sep = d == 0 ? "" : d + 1 == o->n_profile_dirs ? " or " : ", ";
                int n = snprintf(dirs + at, sizeof(dirs) - at, "%s%s", sep, o->profile_dirs[d]);
                at = n < 0 ? sizeof(dirs) : at + (size_t)n;
        }
        return tsync_error(err, ENOENT, "layer '%s': no such profile in %s", name, dirs);
}

static int load_moved(const struct tsync_plan *plan, struct tsync_source_opts *so, struct tsync_profile **ret,
                      struct tsync_source_info *info, struct tsync_err *err)
{
        so->format = TSYNC_FORMAT_OCI;
        int r = tsync_source_from_json(plan->seccomp, so, ret, info, err);
        if (r < 0)
                return tsync_error_prefix(err, "linux.seccomp (replace mode)");
        return tsync_profile_check_notify(*ret, "linux.seccomp", err);
}

static int load_layer(const struct tsync_plan *plan, size_t i, const struct tsync_plan_paths *o,
                      struct tsync_source_opts *so, struct tsync_profile **ret, struct tsync_source_info *info,
                      struct tsync_err *err)
{
        _cleanup_free_ char *path = NULL;
        const char *name = plan->layers[i];
        int r;
        if (plan->layers_by_name) {
                r = tsync_layer_find(o, name, &path, err);
                if (r < 0)
                        return r;
        } else if (name[0] != '/') {
                return tsync_error(err, EINVAL, "layer %zu: '%s' is not an absolute path", i, name);
        } else if (!(path = strdup(name))) {
                return tsync_error(err, ENOMEM, "out of memory");
        }
        r = tsync_source_load(path, so, ret, info, err);
        if (r == 0)
                r = tsync_profile_check_notify(*ret, path, err);
        return r < 0 ? tsync_error_prefix(err, "layer '%s'", name) : 0;
}

/* The ABIs a kernel of the native architecture runs besides its own: a
 * process may switch to them (int 0x80 on x86_64), so the exec-once filter
 * names them too rather than leave them to the bad-architecture action. */
static size_t companion_arches(uint32_t native, uint32_t ret[3])
{
        size_t n = 0, count;
        const struct tsync_arch_def *rows = tsync_arches(&count);
        ret[n++] = native;
        for (size_t i = 0; i < count && n < 3; i++)
                if (rows[i].companion_of == native)
                        ret[n++] = rows[i].token;
        return n;
}

/* Default ALLOW; execve and execveat go to the listener (SCMP_ACT_NOTIFY). */
static int exec_once_profile(struct tsync_profile **ret, struct tsync_err *err)
{
        static const char *const calls[] = { "execve", "execveat" };
        uint32_t arches[3];
        size_t n_arches = companion_arches(seccomp_arch_native(), arches);
        _cleanup_profile_ struct tsync_profile *p = calloc(1, sizeof(*p));
        if (!p || !(p->arches = calloc(n_arches, sizeof(*p->arches))) || !(p->rules = calloc(1, sizeof(*p->rules))))
                return tsync_error(err, ENOMEM, "out of memory");
        p->default_action = (struct tsync_action){ .kind = TSYNC_ACT_ALLOW };
        memcpy(p->arches, arches, n_arches * sizeof(*arches));
        p->n_arches = n_arches;
        p->n_rules = 1;
        struct tsync_rule *rule = &p->rules[0];
        rule->action = (struct tsync_action){ .kind = TSYNC_ACT_NOTIFY };
        if (!(rule->origin = strdup("exec-once")) || !(rule->names = calloc(ARRAY_SIZE(calls), sizeof(char *))))
                return tsync_error(err, ENOMEM, "out of memory");
        for (size_t i = 0; i < ARRAY_SIZE(calls); i++) {
                if (!(rule->names[i] = strdup(calls[i])))
                        return tsync_error(err, ENOMEM, "out of memory");
                rule->n_names++;
        }
        *ret = TAKE_PTR(p);
        return 0;
}

static bool is_exec_once(const struct tsync_plan *plan, size_t k)
{
        return plan->init.exec_once && k + 1 + (plan->record.req.output ? 1 : 0) == tsync_plan_filter_count(plan);
}

/* The recording filter (plan_record.h): every call of every ABI the machine
 * runs goes to the init's recorder, which lets it through and notes it. */
static int record_profile(struct tsync_profile **ret, struct tsync_err *err)
{
        uint32_t arches[3];
        size_t n_arches = companion_arches(seccomp_arch_native(), arches);
        _cleanup_profile_ struct tsync_profile *p = calloc(1, sizeof(*p));
        if (!p || !(p->arches = calloc(n_arches, sizeof(*p->arches))))
                return tsync_error(err, ENOMEM, "out of memory");
        p->default_action = (struct tsync_action){ .kind = TSYNC_ACT_NOTIFY };
        memcpy(p->arches, arches, n_arches * sizeof(*arches));
        p->n_arches = n_arches;
        *ret = TAKE_PTR(p);
        return 0;
}

static bool is_record(const struct tsync_plan *plan, size_t k)
{
        return plan->record.req.output && k + 1 == tsync_plan_filter_count(plan);
}

int tsync_plan_load_filter(const struct tsync_plan *plan, size_t k, const struct tsync_plan_paths *o,
                           struct tsync_profile **ret, uint64_t *ret_caps, struct tsync_warnings *w,
                           struct tsync_err *err)
{
        bool moved = plan->mode == TSYNC_MODE_REPLACE && plan->seccomp;
        /* A layer must say exactly what it means; the moved linux.seccomp is read as runc would. */
        struct tsync_source_opts so = { .format = TSYNC_FORMAT_AUTO,
                                        .have_caps = true,
                                        .keys = moved && k == 0 ? TSYNC_KEYS_WARN : TSYNC_KEYS_ERROR,
                                        .warnings = w };
        struct tsync_source_info info = { 0 };
        *ret = NULL;
        if (k >= tsync_plan_filter_count(plan))
                return tsync_error(err, EINVAL, "filter %zu: the plan has %zu", k, tsync_plan_filter_count(plan));
        int r = tsync_caps_bounding_of(plan->capabilities, "plan.capabilities.bounding", &so.caps, err);
        if (r < 0)
                return r;
        if (is_record(plan, k)) {
                r = record_profile(ret, err);
                if (r == 0)
                        *ret_caps = so.caps;
                return r;
        }
        if (is_exec_once(plan, k)) {
                r = exec_once_profile(ret, err);
                if (r == 0)
                        *ret_caps = so.caps;
                return r;
        }
        if (moved && k == 0)
                r = load_moved(plan, &so, ret, &info, err);
        else
                r = load_layer(plan, k - (moved ? 1 : 0), o, &so, ret, &info, err);
        if (r < 0) {
                tsync_profile_free(*ret);
                *ret = NULL;
                return r;
        }
        *ret_caps = info.caps;
        return 0;
}

void tsync_plan_programs_clear(struct tsync_plan_programs *p)
{
        for (size_t i = 0; i < p->n; i++)
                tsync_program_free(p->progs[i]);
        free(p->agent_host_path);
        free(p->agent_metadata);
        *p = (struct tsync_plan_programs){ 0 };
}

int tsync_plan_encode_filter(const struct tsync_plan_programs *progs, size_t k, void **ret_buf, size_t *ret_size,
                             struct tsync_err *err)
{
        const struct tsync_program *prog = progs->progs[progs->n_baseline + k];
        bool agent = prog->listener == TSYNC_LISTENER_AGENT;
        if (agent && !progs->agent_metadata)
                return tsync_error(err, EINVAL, "filter %zu: an agent's listener without the agent", k);
        struct tsync_filter_agent a = { TSYNC_CONTAINER_RELAY, progs->agent_metadata };
        size_t size = tsync_filter_file_size(prog->len, agent ? &a : NULL);
        _cleanup_free_ void *buf = malloc(size);
        if (!buf)
                return tsync_error(err, ENOMEM, "out of memory");
        long written = agent ? tsync_filter_encode_agent(prog->insns, prog->len, prog->flags, &a, buf, size)
                             : tsync_filter_encode(prog->insns, prog->len, prog->flags, prog->listener, buf, size);
        if (written < 0)
                return tsync_error(err, (int)-written, "encoding filter %zu: %s", k, tsync_errtext((int)-written));
        *ret_buf = TAKE_PTR(buf);
        *ret_size = (size_t)written;
        return 0;
}

/* Marks ret's newest program as the agent's when p hands its listener to one
 * (NOTIFY actions; a listenerPath alone gets nothing from runc either). The
 * kernel gives one listener per filter chain, so one agent at most. */
static int mark_agent(const struct tsync_profile *p, struct tsync_plan_programs *ret, struct tsync_err *err)
{
        if (!tsync_profile_has_notify_action(p))
                return 0;
        if (ret->agent_metadata)
                return tsync_error(err, EINVAL,
                                   "a second filter with SCMP_ACT_NOTIFY: the kernel allows one listener per "
                                   "process, so one agent at most");
        if (!p->listener_path || p->listener_path[0] != '/')
                return tsync_error(err, EINVAL, "SCMP_ACT_NOTIFY needs an absolute listenerPath");
        if (!(ret->agent_host_path = strdup(p->listener_path)) ||
            !(ret->agent_metadata = strdup(p->listener_metadata ? p->listener_metadata : "")))
                return tsync_error(err, ENOMEM, "out of memory");
        ret->progs[ret->n]->listener = TSYNC_LISTENER_AGENT;
        return 0;
}

/* The runtime's own profile (layer mode): the runtime loads it on the init
 * before the init starts, so the init's calls after its load are judged by
 * it too. *ret NULL when the config has none, or in replace mode (then it is
 * one of the plan's filters). Its warnings were the runtime's to give. It goes
 * through the cache like the layers: compiling Podman's profile is most of
 * what a precreate would otherwise spend. */
static int compile_baseline(const struct tsync_json *config, const struct tsync_plan *plan, const char *cache_dir,
                            struct tsync_program **ret, struct tsync_err *err)
{
        *ret = NULL;
        if (plan->mode == TSYNC_MODE_REPLACE || !tsync_json_get(tsync_json_get(config, "linux"), "seccomp"))
                return 0;
        struct tsync_source_opts so = { .format = TSYNC_FORMAT_CONFIG, .keys = TSYNC_KEYS_WARN };
        struct tsync_source_info info;
        struct tsync_compile_opts co = { 0 };
        /* The same document, judged by this same build before: its program,
         * without reading the profile again (an engine's profile is the same
         * at every start). A config's profile is resolved against no
         * capabilities (caps 0, as info.caps says below). */
        char key[TSYNC_CACHE_KEY_LEN + 1];
        struct tsync_err quiet = { 0 };
        const struct tsync_json *seccomp = tsync_json_get(tsync_json_get(config, "linux"), "seccomp");
        bool keyed = cache_dir && tsync_cache_key_json(seccomp, &co, 0, key, &quiet) == 0;
        if (keyed && tsync_cache_load(cache_dir, key, ret, &quiet) == 0)
                return 0;
        _cleanup_profile_ struct tsync_profile *p = NULL;
        int r = tsync_source_from_json(config, &so, &p, &info, err);
        if (r < 0)
                return r;
        r = tsync_cache_compile(cache_dir, p, &co, info.caps, ret, NULL, err);
        if (r == 0 && keyed && info.caps == 0)
                r = tsync_cache_store(cache_dir, key, *ret, err);
        return r < 0 ? tsync_error_prefix(err, "linux.seccomp (the runtime's own profile)") : 0;
}

int tsync_plan_compile(const struct tsync_plan *plan, const struct tsync_plan_paths *o, const struct tsync_json *config,
                       struct tsync_plan_programs *ret, struct tsync_warnings *w, struct tsync_err *err)
{
        *ret = (struct tsync_plan_programs){ 0 };
        int r = config ? compile_baseline(config, plan, o->cache_dir, &ret->progs[0], err) : 0;
        if (r < 0)
                return r;
        ret->n = ret->n_baseline = ret->progs[0] ? 1 : 0;
        size_t n = tsync_plan_filter_count(plan);
        struct tsync_compile_opts co = { .strict = plan->fail_unknown_syscall };
        for (size_t k = 0; r == 0 && k < n; k++) {
                _cleanup_profile_ struct tsync_profile *p = NULL;
                uint64_t caps = 0;
                r = tsync_plan_load_filter(plan, k, o, &p, &caps, w, err);
                if (r < 0)
                        break;
                r = tsync_cache_compile(o->cache_dir, p, &co, caps, &ret->progs[ret->n], w, err);
                if (r < 0) {
                        char label[128];
                        tsync_plan_filter_label(plan, k, label, sizeof(label));
                        (void)tsync_error_prefix(err, "%s", label);
                        break;
                }
                /* The listener is the plan's to give, never a profile's: the
                 * cached program is the bare filter, marked here. */
                if (is_record(plan, k))
                        ret->progs[ret->n]->listener = TSYNC_LISTENER_RECORD;
                else if (is_exec_once(plan, k))
                        ret->progs[ret->n]->listener = TSYNC_LISTENER_EXEC_ONCE;
                else
                        r = mark_agent(p, ret, err);
                ret->n++;
                if (r < 0) {
                        char label[128];
                        tsync_plan_filter_label(plan, k, label, sizeof(label));
                        (void)tsync_error_prefix(err, "%s", label);
                }
        }
        if (r < 0)
                tsync_plan_programs_clear(ret);
        return r;
}

int tsync_plan_check_annotations(const struct tsync_plan *plan, const struct tsync_json *config, struct tsync_err *err)
{
        const struct tsync_json *annotations = tsync_json_get(config, "annotations");
        size_t n;
        const struct tsync_runtime *rt = tsync_runtimes(&n);
        for (size_t i = 0; plan->mode == TSYNC_MODE_REPLACE && i < n; i++)
                for (const char *const *a = rt[i].seccomp_annotations; a && *a; a++)
                        if (tsync_json_get(annotations, *a))
                                return tsync_error(err, EINVAL,
                                                   "annotations.%s: %s's own way of applying linux.seccomp, which "
                                                   "replace mode cannot honour: use layer mode under %s, or remove "
                                                   "the annotation",
                                                   *a, rt[i].name, rt[i].name);
        return 0;
}

static bool is_hex_token(const char *s)
{
        size_t n = strlen(s);
        if (n != 32)
                return false;
        for (size_t i = 0; i < n; i++)
                if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
                        return false;
        return true;
}

int tsync_plan_state_dir_kind(const struct tsync_plan *plan, const struct tsync_plan_paths *o,
                              enum tsync_state_dir_kind *ret, struct tsync_err *err)
{
        const char *d = plan->state_dir;
        if (!d)
                return tsync_error(err, EINVAL, "plan: no state directory: the filters travel in the init's arguments");
        size_t rl = strlen(o->state_root);
        if (strncmp(d, o->state_root, rl) == 0 && d[rl] == '/' && is_hex_token(d + rl + 1)) {
                *ret = TSYNC_STATE_DIR_PRECREATE;
                return 0;
        }
        if (o->bundle) {
                size_t bl = strlen(o->bundle);
                while (bl > 1 && o->bundle[bl - 1] == '/')
                        bl--;
                if (strncmp(d, o->bundle, bl) == 0 && d[bl] == '/' && strcmp(d + bl + 1, TSYNC_BUNDLE_STATE) == 0) {
                        *ret = TSYNC_STATE_DIR_BUNDLE;
                        return 0;
                }
        }
        return tsync_error(err, EPERM, "plan.stateDir: '%s' is neither %s/<token> nor in the bundle", d, o->state_root);
}

int tsync_plan_check_state_dir(const struct tsync_plan *plan, const struct tsync_plan_paths *o, struct tsync_err *err)
{
        if (plan->delivery == TSYNC_DELIVERY_ARGS)
                return 0;
        enum tsync_state_dir_kind kind;
        int r = tsync_plan_state_dir_kind(plan, o, &kind, err);
        if (r < 0)
                return r;
        struct stat st;
        if (lstat(plan->state_dir, &st) < 0)
                return tsync_error_errno(err, "%s", plan->state_dir);
        if (!S_ISDIR(st.st_mode))
                return tsync_error(err, ENOTDIR, "%s: not a directory (a symlink?)", plan->state_dir);
        return tsync_check_private_dir(plan->state_dir, &st, err);
}

/* SECCOMP_RET_TRACE anywhere in prog. */
static bool returns_trace(const struct tsync_program *prog)
{
        for (size_t i = 0; i < prog->len; i++)
                if (prog->insns[i].code == (BPF_RET | BPF_K) &&
                    (prog->insns[i].k & SECCOMP_RET_ACTION_FULL) == SECCOMP_RET_TRACE)
                        return true;
        return false;
}

int tsync_record_check_programs(const struct tsync_plan *plan, const struct tsync_plan_programs *progs,
                                struct tsync_err *err)
{
        if (!plan->record.req.output)
                return 0;
        for (size_t i = 0; i < progs->n; i++) {
                char label[128] = "linux.seccomp (the runtime's own profile)";
                if (i >= progs->n_baseline)
                        tsync_plan_filter_label(plan, i - progs->n_baseline, label, sizeof(label));
                if (progs->progs[i]->listener == TSYNC_LISTENER_AGENT)
                        return tsync_error(err, EINVAL,
                                           "%s: SCMP_ACT_NOTIFY (a notify agent's listener) and a recording: the "
                                           "kernel gives one listener per filter chain, and the recording needs it",
                                           label);
                if (returns_trace(progs->progs[i]))
                        return tsync_error(err, EINVAL,
                                           "%s: SCMP_ACT_TRACE and a recording: the recording's notification takes "
                                           "precedence over a tracer's, so the tracer would never see those calls "
                                           "(and the init refuses it)",
                                           label);
        }
        return 0;
}
