/* A recording as a profile: an allow-list of the names the workload called,
 * on the ABIs it used, everything else refused with one errno.
 *
 * The shape (the same set and request give the same bytes):
 *   OCI (linux.seccomp):  defaultAction SCMP_ACT_ERRNO, defaultErrnoRet,
 *                         architectures (the native ABI first, then the others
 *                         by name), syscalls.
 *   Docker:               the same with archMap instead of architectures: one
 *                         entry for the native architecture, whose
 *                         subArchitectures are the other ABIs used. Not
 *                         includes.arches: Docker compares those against the
 *                         host's architecture, not the ABI of a call.
 *   syscalls[0]:          the recorded names, sorted, SCMP_ACT_ALLOW;
 *   syscalls[1]:          the calls made under the profile before the workload
 *                         runs, which no recording sees (extra_calls below),
 *                         less those already in syscalls[0]; left out when empty.
 * Docker's rules carry a "comment" saying which is which; the runtime-spec has
 * no comment field, so the OCI form carries none.
 *
 * With a base (an `if:` that is not one of our recordings, record_merge.c):
 * its rules first, as they were, then syscalls[0] and [1] as above, each less
 * the names a base rule names (left out when empty).
 *
 * A recorded number libseccomp has no name for (a call newer than it, or
 * syscall(-1)) cannot be listed: a profile names calls. It is left out, which
 * denies it (the way a profile that cannot name a call denies it anyway), and
 * the Docker form's comment lists it. */
#include "record/record_file.h"

#include <errno.h>
#include <seccomp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "facts/runtimes.h"
#include "record_internal.h"
#include "shared/cleanup.h"
#include "shared/init_calls.h"
#include "translate/profile.h"
#include "util/json_build.h"

/* The init's calls every start makes: those of a filter of its own (exec-once,
 * a notify agent's hand-over, and any later kind) are left out. */
#define INIT_CALLS_KEPT                                                                                                \
        (TSYNC_CALL_CAPS_AFTER | TSYNC_CALL_MORE_FILTERS | TSYNC_CALL_BEFORE_LOAD | TSYNC_CALL_THREAD |                \
         TSYNC_CALL_WORKLOAD_EXEC | TSYNC_CALL_WORKLOAD_RUNS)

/* Into ret, the calls made under a recorded profile before the workload runs
 * that this libseccomp names on the native ABI: every runtime's calls after
 * its load (facts/runtimes.h: under a recording used as linux.seccomp the
 * profile judges them, and no recording sees them), and
 * seccomp-tsync-init's own (shared/init_calls.h: before its
 * load, which linux.seccomp judges, and after it, which every layer judges),
 * except those of the exec-once supervisor, of a notify agent's hand-over and
 * of the recorder: they come with filters of their own, and the host's route
 * check names them when a profile denies them. */
static int extra_calls(uint32_t native, struct tsync_names *ret)
{
        size_t n;
        const struct tsync_runtime *rt = tsync_runtimes(&n);
        for (size_t r = 0; r < n; r++)
                for (const char *const *c = rt[r].calls_after_load; c && *c; c++)
                        if (seccomp_syscall_resolve_name_arch(native, *c) >= 0 && tsync_names_add(ret, *c) < 0)
                                return -ENOMEM;
        for (size_t i = 0; i < tsync_init_ncalls; i++) {
                const struct tsync_init_call *c = &tsync_init_calls[i];
                if (c->when & ~INIT_CALLS_KEPT)
                        continue;
                if (seccomp_syscall_resolve_name_arch(native, c->name) >= 0 && tsync_names_add(ret, c->name) < 0)
                        return -ENOMEM;
        }
        return 0;
}

static void names_clearp(struct tsync_names *names)
{
        tsync_names_clear(names);
}
#define _cleanup_names_ _cleanup_(names_clearp)

static int abi_cmp(const void *a, const void *b)
{
        return strcmp(tsync_arch_name(*(const uint32_t *)a), tsync_arch_name(*(const uint32_t *)b));
}

/* The names of set's calls into names and its ABIs into abis; the numbers
 * without a name as "SCMP_ARCH_X86_64 462, ..." into unnamed (NULL when none). */
static int add_recorded(const struct tsync_record_set *set, struct tsync_abis *abis, struct tsync_names *names,
                        char **unnamed, struct tsync_err *err)
{
        _cleanup_free_ char *list = NULL;
        size_t list_len = 0, count = 0;
        FILE *f = open_memstream(&list, &list_len);
        if (!f)
                return tsync_error(err, ENOMEM, "out of memory");
        int r = 0;
        for (size_t i = 0; set && r == 0 && i < set->n; i++) {
                const struct tsync_record_call *c = &set->calls[i];
                if (tsync_abis_add(abis, c->abi) < 0) {
                        r = tsync_error(err, E2BIG, "too many architectures");
                        break;
                }
                _cleanup_free_ char *name = seccomp_syscall_resolve_num_arch(c->abi, (int)c->nr);
                if (!name) {
                        fprintf(f, "%s%s %u", count++ ? ", " : "", tsync_arch_name(c->abi), c->nr);
                        continue;
                }
                if (tsync_names_add(names, name) < 0)
                        r = tsync_error(err, ENOMEM, "out of memory");
        }
        if (fclose(f) != 0 && r == 0)
                r = tsync_error(err, ENOMEM, "out of memory");
        if (r < 0)
                return r;
        *unnamed = count ? TAKE_PTR(list) : NULL;
        return 0;
}

int tsync_record_unnamed(const struct tsync_record_set *set, char **ret, struct tsync_err *err)
{
        struct tsync_abis abis = { 0 };
        _cleanup_names_ struct tsync_names names = { 0 };
        char *unnamed = NULL;
        int r = add_recorded(set, &abis, &names, &unnamed, err);
        if (r < 0)
                return r;
        *ret = unnamed;
        return 0;
}

static struct tsync_json *string_array(char *const *v, size_t n)
{
        struct tsync_json *arr = tsync_json_new_array();
        for (size_t i = 0; arr && i < n; i++)
                if (tsync_json_append(arr, tsync_json_new_string(v[i])) < 0) {
                        tsync_json_free(arr);
                        return NULL;
                }
        return arr;
}

static struct tsync_json *abi_array(const uint32_t *v, size_t n)
{
        struct tsync_json *arr = tsync_json_new_array();
        for (size_t i = 0; arr && i < n; i++)
                if (tsync_json_append(arr, tsync_json_new_string(tsync_arch_name(v[i]))) < 0) {
                        tsync_json_free(arr);
                        return NULL;
                }
        return arr;
}

static int add_rule(struct tsync_json *syscalls, const struct tsync_names *names, const char *comment)
{
        struct tsync_json *rule = tsync_json_new_object();
        if (!rule)
                return -ENOMEM;
        if (tsync_json_set(rule, "names", string_array(names->v, names->n)) < 0 ||
            tsync_json_set(rule, "action", tsync_json_new_string("SCMP_ACT_ALLOW")) < 0 ||
            (comment && tsync_json_set(rule, "comment", tsync_json_new_string(comment)) < 0)) {
                tsync_json_free(rule);
                return -ENOMEM;
        }
        return tsync_json_append(syscalls, rule);
}

static struct tsync_json *arg_object(const struct tsync_arg *a)
{
        struct tsync_json *o = tsync_json_new_object();
        if (o && (tsync_json_set(o, "index", tsync_json_new_u64(a->index)) < 0 ||
                  tsync_json_set(o, "value", tsync_json_new_u64(a->value)) < 0 ||
                  tsync_json_set(o, "valueTwo", tsync_json_new_u64(a->value_two)) < 0 ||
                  tsync_json_set(o, "op", tsync_json_new_string(tsync_op_name(a->op))) < 0)) {
                tsync_json_free(o);
                return NULL;
        }
        return o;
}

/* A base rule as it was read (names, action, errnoRet, args). */
static int add_base_rule(struct tsync_json *syscalls, const struct tsync_rule *rule, bool docker)
{
        struct tsync_json *o = tsync_json_new_object();
        if (tsync_json_append(syscalls, o) < 0 ||
            tsync_json_set(o, "names", string_array(rule->names, rule->n_names)) < 0 ||
            tsync_json_set(o, "action", tsync_json_new_string(tsync_action_name(rule->action.kind))) < 0)
                return -ENOMEM;
        if (rule->action.kind == TSYNC_ACT_ERRNO &&
            tsync_json_set(o, "errnoRet", tsync_json_new_u64(rule->action.data)) < 0)
                return -ENOMEM;
        if (rule->n_args > 0) {
                struct tsync_json *args = tsync_json_new_array();
                if (tsync_json_set(o, "args", args) < 0)
                        return -ENOMEM;
                for (size_t i = 0; i < rule->n_args; i++)
                        if (tsync_json_append(args, arg_object(&rule->args[i])) < 0)
                                return -ENOMEM;
        }
        if (docker &&
            tsync_json_set(o, "comment", tsync_json_new_string("From the input profile (if:), as it was.")) < 0)
                return -ENOMEM;
        return 0;
}

static int build(const struct tsync_abis *abis, const struct tsync_profile *base, const struct tsync_names *recorded,
                 const struct tsync_names *extra, const char *unnamed, const struct tsync_record_request *req,
                 int errno_ret, struct tsync_json **ret)
{
        bool docker = req->format == TSYNC_RECORD_FORMAT_DOCKER;
        _cleanup_json_ struct tsync_json *doc = tsync_json_new_object();
        _cleanup_free_ char *recorded_comment = NULL;

        if (!doc || tsync_json_set(doc, "defaultAction", tsync_json_new_string("SCMP_ACT_ERRNO")) < 0 ||
            tsync_json_set(doc, "defaultErrnoRet", tsync_json_new_u64((uint64_t)errno_ret)) < 0)
                return -ENOMEM;
        if (docker) {
                /* set and append take what they are given, also when they fail (NULL: -ENOMEM). */
                struct tsync_json *map = tsync_json_new_array();
                if (tsync_json_set(doc, "archMap", map) < 0)
                        return -ENOMEM;
                struct tsync_json *entry = tsync_json_new_object();
                if (tsync_json_append(map, entry) < 0 ||
                    tsync_json_set(entry, "architecture", tsync_json_new_string(tsync_arch_name(abis->v[0]))) < 0 ||
                    tsync_json_set(entry, "subArchitectures", abi_array(abis->v + 1, abis->n - 1)) < 0)
                        return -ENOMEM;
        } else if (tsync_json_set(doc, "architectures", abi_array(abis->v, abis->n)) < 0) {
                return -ENOMEM;
        }
        struct tsync_json *syscalls = tsync_json_new_array();
        if (tsync_json_set(doc, "syscalls", syscalls) < 0)
                return -ENOMEM;
        if (docker &&
            asprintf(&recorded_comment, "%s%s%s%s",
                     "The workload's calls, recorded by oci-seccomp-tsync (every thread and child, each ABI listed).",
                     unnamed ? " Recorded, but with no name in this libseccomp, so not allowed: " : "",
                     unnamed ? unnamed : "", unnamed ? "." : "") < 0) {
                recorded_comment = NULL;
                return -ENOMEM;
        }
        for (size_t i = 0; base && i < base->n_rules; i++)
                if (add_base_rule(syscalls, &base->rules[i], docker) < 0)
                        return -ENOMEM;
        if (recorded->n > 0 && add_rule(syscalls, recorded, recorded_comment) < 0)
                return -ENOMEM;
        if (extra->n > 0 &&
            add_rule(syscalls, extra,
                     docker ? "Not recorded: what runc and crun call between their seccomp load and the exec of "
                              "the container's process, and what seccomp-tsync-init calls around its own load, "
                              "so that the profile works as linux.seccomp and as a layer."
                            : NULL) < 0)
                return -ENOMEM;
        *ret = TAKE_PTR(doc);
        return 0;
}

int tsync_record_profile(const struct tsync_record_set *set, const struct tsync_record_request *req, char **ret,
                         size_t *ret_len, struct tsync_err *err)
{
        uint32_t native = seccomp_arch_native();
        struct tsync_abis abis = { 0 };
        _cleanup_names_ struct tsync_names recorded = { 0 }, extra = { 0 }, extra_left = { 0 }, named = { 0 },
                                           recorded_left = { 0 };
        _cleanup_free_ char *unnamed = NULL;
        _cleanup_profile_ struct tsync_profile *base = NULL;
        int r;

        /* 0: a request nobody filled in gets the default. */
        int errno_ret = req->errno_ret ? req->errno_ret : EPERM;
        if (errno_ret != EPERM && errno_ret != ENOSYS)
                return tsync_error(err, EINVAL, "errno %d: a recorded profile answers EPERM (%d) or ENOSYS (%d)",
                                   req->errno_ret, EPERM, ENOSYS);
        if (req->format != TSYNC_RECORD_FORMAT_OCI && req->format != TSYNC_RECORD_FORMAT_DOCKER)
                return tsync_error(err, EINVAL, "profile format %d is unknown", (int)req->format);

        if (tsync_abis_add(&abis, native) < 0 || extra_calls(native, &extra) < 0)
                return tsync_error(err, ENOMEM, "out of memory");
        r = add_recorded(set, &abis, &recorded, &unnamed, err);
        if (r < 0)
                return r;
        if (req->input) {
                r = tsync_record_merge_input(req->input, &extra, &abis, &recorded, &base, &named, err);
                if (r < 0)
                        return tsync_error_prefix(err, "%s", req->input);
        }
        if (recorded.n == 0 && !base)
                return tsync_error(err, ENODATA,
                                   "the recording holds no call with a name: nothing the workload did to allow");
        /* What a base rule names keeps that rule's treatment: a call it blocks stays blocked. */
        for (size_t i = 0; i < recorded.n; i++)
                if (!tsync_names_has(&named, recorded.v[i]) && tsync_names_add(&recorded_left, recorded.v[i]) < 0)
                        return tsync_error(err, ENOMEM, "out of memory");
        for (size_t i = 0; i < extra.n; i++)
                if (!tsync_names_has(&recorded, extra.v[i]) && !tsync_names_has(&named, extra.v[i]) &&
                    tsync_names_add(&extra_left, extra.v[i]) < 0)
                        return tsync_error(err, ENOMEM, "out of memory");
        qsort(abis.v + 1, abis.n - 1, sizeof(abis.v[0]), abi_cmp);

        _cleanup_json_ struct tsync_json *doc = NULL;
        if (build(&abis, base, &recorded_left, &extra_left, unnamed, req, errno_ret, &doc) < 0)
                return tsync_error(err, ENOMEM, "out of memory");
        _cleanup_free_ char *text = NULL;
        size_t len = 0;
        r = tsync_json_write(doc, true, &text, &len, err);
        if (r < 0)
                return r;
        /* A text file ends with a newline (yajl's beautify writes one). */
        if (len == 0 || text[len - 1] != '\n') {
                char *longer = realloc(text, len + 2);
                if (!longer)
                        return tsync_error(err, ENOMEM, "out of memory");
                text = longer;
                text[len++] = '\n';
                text[len] = '\0';
        }
        char *out = TAKE_PTR(text);
        *ret = out;
        *ret_len = len;
        return 0;
}

int tsync_record_check_input(const struct tsync_record_request *req, struct tsync_err *err)
{
        _cleanup_free_ char *text = NULL;
        size_t len = 0;
        if (!req->input)
                return 0;
        /* The profile of an empty recording: everything poststop will judge of
         * the input is judged now, before the workload runs. */
        return tsync_record_profile(NULL, req, &text, &len, err);
}
