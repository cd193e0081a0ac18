/* The Docker / containers-common profile reader: first Debian's real
 * /usr/share/containers/seccomp.json resolved for Podman's default capability
 * set (read from containers.conf), with the expectations worked out from the
 * file's own text at run time; then small hand-written profiles, one per rule
 * of the format (includes/excludes, minKernel, name vs names, errno strings,
 * archMap), and the profiles it must refuse, with the JSON path it must name. */
#include <errno.h>
#include <seccomp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/capability.h>
#include <sys/utsname.h>

#include "shared/cleanup.h"
#include "tap.h"
#include "translate/profile.h"
#include "translate/source.h"
#include "util/json.h"

#define SECCOMP_JSON    "/usr/share/containers/seccomp.json"
#define CONTAINERS_CONF "/usr/share/containers/containers.conf"

#define BIT(c) ((uint64_t)1 << (c))

/* The profiles below are written with ' for " to stay readable. */
static struct tsync_json *parse_sq(const char *sq)
{
        struct tsync_err err = { 0 };
        struct tsync_json *doc = NULL;
        char *text = strdup(sq);
        if (!text)
                return NULL;
        for (char *c = text; *c; c++)
                if (*c == '\'')
                        *c = '"';
        if (tsync_json_parse(text, strlen(text), NULL, &doc, &err) < 0) {
                tap_diag("test profile does not parse: %s: %s", err.msg, text);
                doc = NULL;
        }
        free(text);
        return doc;
}

static struct tsync_docker_ctx ctx_of(uint32_t arch, uint64_t caps, unsigned major, unsigned minor)
{
        struct tsync_docker_ctx ctx = {
                .native_arch = arch, .caps = caps, .kernel_major = major, .kernel_minor = minor
        };
        return ctx;
}

static int resolve(const char *sq, const struct tsync_docker_ctx *ctx, struct tsync_profile **ret,
                   struct tsync_err *err)
{
        struct tsync_json *doc = parse_sq(sq);
        if (!doc)
                return tsync_error(err, EBADMSG, "(test) profile text does not parse");
        int r = tsync_profile_from_docker(doc, ctx, ret, err);
        tsync_json_free(doc);
        return r;
}

static const struct tsync_rule *rule_from(const struct tsync_profile *p, size_t i)
{
        char origin[64];
        (void)snprintf(origin, sizeof(origin), "syscalls[%zu]", i);
        for (size_t j = 0; j < p->n_rules; j++)
                if (p->rules[j].origin && strcmp(p->rules[j].origin, origin) == 0)
                        return &p->rules[j];
        return NULL;
}

/* "0,2": the indices of the entries that became rules, in rule order. */
static void present_list(const struct tsync_profile *p, char *buf, size_t size)
{
        size_t off = 0;
        buf[0] = '\0';
        for (size_t j = 0; j < p->n_rules && off < size; j++) {
                unsigned long i;
                if (sscanf(p->rules[j].origin, "syscalls[%lu]", &i) != 1)
                        i = 999;
                off += (size_t)snprintf(buf + off, size - off, "%s%lu", j ? "," : "", i);
        }
}

static bool has_arch(const struct tsync_profile *p, uint32_t arch)
{
        for (size_t i = 0; i < p->n_arches; i++)
                if (p->arches[i] == arch)
                        return true;
        return false;
}

static bool json_list_has(const struct tsync_json *list, const char *s)
{
        if (!list || list->type != TSYNC_JSON_ARRAY)
                return false;
        for (size_t i = 0; i < list->u.array.len; i++) {
                const struct tsync_json *v = list->u.array.items[i];
                if (v->type == TSYNC_JSON_STRING && strcmp(v->u.string.ptr, s) == 0)
                        return true;
        }
        return false;
}

static size_t json_len(const struct tsync_json *list)
{
        return list && list->type == TSYNC_JSON_ARRAY ? list->u.array.len : 0;
}

/* The errno a name stands for, found through glibc rather than the code under test. */
static int errno_by_name(const char *name)
{
        for (int e = 1; e < 4096; e++) {
                const char *n = strerrorname_np(e);
                if (n && strcmp(n, name) == 0)
                        return e;
        }
        return -1;
}

/* Podman's default_capabilities from containers.conf, as a bit mask. */
static int podman_default_caps(uint64_t *ret)
{
        FILE *f = fopen(CONTAINERS_CONF, "re");
        char line[512];
        bool in_list = false;
        uint64_t caps = 0;
        int n = 0;

        if (!f)
                return -errno;
        while (fgets(line, sizeof(line), f)) {
                char *s = line + strspn(line, " \t");
                if (*s == '#')
                        continue;
                if (!in_list) {
                        if (strncmp(s, "default_capabilities", 20) == 0 && strchr(s, '['))
                                in_list = true;
                        else
                                continue;
                        s = strchr(s, '[') + 1;
                }
                for (char *q = strchr(s, '"'); q; q = strchr(q, '"')) {
                        char *end = strchr(q + 1, '"'), name[128];
                        cap_value_t c;
                        if (!end)
                                break;
                        (void)snprintf(name, sizeof(name), "CAP_%.*s", (int)(end - q - 1), q + 1);
                        if (cap_from_name(name, &c) != 0) {
                                tap_diag("containers.conf names unknown capability %s", name);
                                (void)fclose(f);
                                return -EINVAL;
                        }
                        caps |= BIT(c);
                        n++;
                        q = end + 1;
                }
                if (strchr(s, ']'))
                        break;
        }
        (void)fclose(f);
        if (n == 0)
                return -ENOENT;
        *ret = caps;
        return n;
}

static bool caps_all_held(const struct tsync_json *list, uint64_t caps)
{
        for (size_t i = 0; i < json_len(list); i++) {
                cap_value_t c;
                if (cap_from_name(list->u.array.items[i]->u.string.ptr, &c) != 0 || !(caps & BIT(c)))
                        return false;
        }
        return true;
}

static bool caps_any_held(const struct tsync_json *list, uint64_t caps)
{
        for (size_t i = 0; i < json_len(list); i++) {
                cap_value_t c;
                if (cap_from_name(list->u.array.items[i]->u.string.ptr, &c) == 0 && (caps & BIT(c)))
                        return true;
        }
        return false;
}

/* Whether entry sc should survive for ctx, from the format's documented rules.
 * The file has no minKernel; an entry with one is reported so this is revisited. */
static bool expect_entry(const struct tsync_json *sc, const char *go_arch, uint64_t caps, bool *ret_unsure)
{
        const struct tsync_json *inc = tsync_json_get(sc, "includes"), *exc = tsync_json_get(sc, "excludes");
        if (tsync_json_get(inc, "minKernel") || tsync_json_get(exc, "minKernel"))
                *ret_unsure = true;
        if (json_len(tsync_json_get(inc, "arches")) && !json_list_has(tsync_json_get(inc, "arches"), go_arch))
                return false;
        if (json_list_has(tsync_json_get(exc, "arches"), go_arch))
                return false;
        if (!caps_all_held(tsync_json_get(inc, "caps"), caps))
                return false;
        if (caps_any_held(tsync_json_get(exc, "caps"), caps))
                return false;
        return true;
}

/* Compares every entry of the real file with the resolved profile. */
static void check_real_file(const struct tsync_json *doc, const struct tsync_profile *p, const char *go_arch,
                            uint64_t caps, const char *label)
{
        const struct tsync_json *calls = tsync_json_get(doc, "syscalls");
        size_t expected = 0, wrong_presence = 0, wrong_content = 0, names = 0;
        bool unsure = false;

        for (size_t i = 0; i < json_len(calls); i++) {
                const struct tsync_json *sc = calls->u.array.items[i];
                const struct tsync_rule *rule = rule_from(p, i);
                bool want = expect_entry(sc, go_arch, caps, &unsure);

                if (want != (rule != NULL)) {
                        tap_diag("%s: syscalls[%zu] %s but should%s be", label, i,
                                 rule ? "became a rule" : "is missing", want ? "" : " not");
                        wrong_presence++;
                }
                if (!rule)
                        continue;
                expected++;
                names += rule->n_names;

                const struct tsync_json *list = tsync_json_get(sc, "names");
                bool same = rule->n_names == json_len(list);
                for (size_t j = 0; same && j < rule->n_names; j++)
                        same = strcmp(rule->names[j], list->u.array.items[j]->u.string.ptr) == 0;
                enum tsync_act act;
                same = same && tsync_action_parse(tsync_json_get(sc, "action")->u.string.ptr, &act) == 0 &&
                       act == rule->action.kind;
                if (same && act == TSYNC_ACT_ERRNO) {
                        const struct tsync_json *e = tsync_json_get(sc, "errno");
                        int want_errno = e ? errno_by_name(e->u.string.ptr) : EPERM;
                        same = rule->action.data == want_errno;
                }
                same = same && rule->n_args == json_len(tsync_json_get(sc, "args"));
                if (!same) {
                        tap_diag("%s: syscalls[%zu]: names, action, errno or args differ from the file", label, i);
                        wrong_content++;
                }
        }
        tap_ok(!unsure, "test_profile_docker_real_file_%s: the file has no minKernel (else extend this oracle)", label);
        tap_ok(wrong_presence == 0 && p->n_rules == expected,
               "test_profile_docker_real_file_%s: every entry kept or dropped as its includes/excludes say (%zu rules "
               "of %zu entries)",
               label, p->n_rules, json_len(calls));
        tap_ok(wrong_content == 0,
               "test_profile_docker_real_file_%s: each rule carries its entry's names, action, errno and args", label);
        tap_ok(p->n_rules >= 10 && p->n_rules < json_len(calls) && names > 300,
               "test_profile_docker_real_file_%s: rule count is sane (%zu rules, %zu syscall names)", label, p->n_rules,
               names);
        bool ordered = true;
        for (size_t j = 1; j < p->n_rules; j++) {
                unsigned long a, b;
                ordered = ordered && sscanf(p->rules[j - 1].origin, "syscalls[%lu]", &a) == 1 &&
                          sscanf(p->rules[j].origin, "syscalls[%lu]", &b) == 1 && a < b;
        }
        tap_ok(ordered, "test_profile_docker_real_file_%s: rules keep the file's order", label);
}

/* For each entry of the file whose includes (or excludes) lists cap: present
 * exactly when the set holds (does not hold) it. */
static void check_cap_entries(const struct tsync_json *doc, const struct tsync_profile *p, const char *cap, bool held,
                              const char *label)
{
        const struct tsync_json *calls = tsync_json_get(doc, "syscalls");
        size_t inc = 0, exc = 0, bad = 0;
        for (size_t i = 0; i < json_len(calls); i++) {
                const struct tsync_json *sc = calls->u.array.items[i];
                if (json_list_has(tsync_json_get(tsync_json_get(sc, "includes"), "caps"), cap)) {
                        inc++;
                        if ((rule_from(p, i) != NULL) != held)
                                bad++;
                }
                if (json_list_has(tsync_json_get(tsync_json_get(sc, "excludes"), "caps"), cap)) {
                        exc++;
                        if ((rule_from(p, i) != NULL) == held)
                                bad++;
                }
        }
        tap_ok(inc > 0 && exc > 0 && bad == 0,
               "test_profile_docker_real_file_%s: %zu entries including %s are %s, %zu excluding it are %s", label, inc,
               cap, held ? "kept" : "dropped", exc, held ? "dropped" : "kept");
}

static void test_profile_docker_real_file(void)
{
        struct tsync_err err = { 0 };
        struct tsync_json *doc = NULL;
        struct utsname u;
        unsigned kmaj = 0, kmin = 0;
        uint64_t podman = 0;
        int n;

        int r = tsync_json_parse_file(SECCOMP_JSON, NULL, &doc, &err);
        if (r == -ENOENT) {
                /* Not a Debian host with golang-github-containers-common installed. */
                tap_ok(1, "test_profile_docker_real_file # SKIP %s: %s", SECCOMP_JSON, err.msg);
                return;
        }
        if (r < 0) {
                tap_ok(0, "test_profile_docker_real_file: %s: %s", SECCOMP_JSON, err.msg);
                return;
        }
        n = podman_default_caps(&podman);
        tap_ok(n > 0, "test_profile_docker_real_file: %d default capabilities in %s (mask %#llx)", n, CONTAINERS_CONF,
               (unsigned long long)podman);
        bool have_kernel = uname(&u) == 0 && sscanf(u.release, "%u.%u", &kmaj, &kmin) == 2 && kmaj >= 3;
        tap_ok(have_kernel, "test_profile_docker_real_file: running kernel %u.%u", kmaj, kmin);
        tap_ok(tsync_profile_is_docker(doc),
               "test_profile_docker_is_docker: Debian's seccomp.json is the Docker format");

        struct tsync_docker_ctx ctx = ctx_of(SCMP_ARCH_X86_64, podman, kmaj, kmin);
        struct tsync_profile *p = NULL;
        r = tsync_profile_from_docker(doc, &ctx, &p, &err);
        tap_ok(r == 0, "test_profile_docker_real_file: resolves for Podman's defaults on x86_64: %s",
               r < 0 ? err.msg : "ok");
        if (r < 0) {
                tsync_json_free(doc);
                return;
        }

        /* Default action: the file's defaultErrno name, which must agree with defaultErrnoRet. */
        const struct tsync_json *de = tsync_json_get(doc, "defaultErrno");
        int want = de ? errno_by_name(de->u.string.ptr) : EPERM;
        tap_ok(p->default_action.kind == TSYNC_ACT_ERRNO && p->default_action.data == want && want > 0,
               "test_profile_docker_real_file: default action ERRNO(%d), the file's %s", p->default_action.data,
               de ? de->u.string.ptr : "(none)");

        /* Architectures: exactly the file's archMap entry for SCMP_ARCH_X86_64. */
        const struct tsync_json *map = tsync_json_get(doc, "archMap"), *entry = NULL;
        for (size_t i = 0; i < json_len(map) && !entry; i++)
                if (strcmp(tsync_json_get(map->u.array.items[i], "architecture")->u.string.ptr, "SCMP_ARCH_X86_64") ==
                    0)
                        entry = map->u.array.items[i];
        size_t want_arches = 1 + json_len(tsync_json_get(entry, "subArchitectures"));
        tap_ok(entry && p->n_arches == want_arches && has_arch(p, SCMP_ARCH_X86_64) && has_arch(p, SCMP_ARCH_X86) &&
                       has_arch(p, SCMP_ARCH_X32) && p->arches[0] == SCMP_ARCH_X86_64,
               "test_profile_docker_real_file: arches are x86_64, x86, x32 (%zu listed)", p->n_arches);

        check_real_file(doc, p, "amd64", podman, "podman_x86_64");
        check_cap_entries(doc, p, "CAP_SYS_ADMIN", podman & BIT(CAP_SYS_ADMIN), "podman_x86_64");
        check_cap_entries(doc, p, "CAP_SYS_CHROOT", podman & BIT(CAP_SYS_CHROOT), "podman_x86_64");
        tsync_profile_free(p);
        p = NULL;

        /* The same with CAP_SYS_ADMIN added: the SYS_ADMIN entries flip, nothing else moves. */
        ctx.caps = podman | BIT(CAP_SYS_ADMIN);
        r = tsync_profile_from_docker(doc, &ctx, &p, &err);
        tap_ok(r == 0, "test_profile_docker_real_file: resolves with CAP_SYS_ADMIN added");
        if (r == 0) {
                check_real_file(doc, p, "amd64", ctx.caps, "podman_sys_admin");
                check_cap_entries(doc, p, "CAP_SYS_ADMIN", true, "podman_sys_admin");
        }
        tsync_profile_free(p);
        p = NULL;

        /* Every capability, on arm64: the arm entries come in, the amd64 ones go. */
        ctx = ctx_of(SCMP_ARCH_AARCH64, cap_max_bits() >= 64 ? UINT64_MAX : BIT(cap_max_bits()) - 1, kmaj, kmin);
        r = tsync_profile_from_docker(doc, &ctx, &p, &err);
        tap_ok(r == 0 && p->n_arches == 2 && p->arches[0] == SCMP_ARCH_AARCH64 && has_arch(p, SCMP_ARCH_ARM),
               "test_profile_docker_real_file: on aarch64 the arches are aarch64, arm");
        if (r == 0)
                check_real_file(doc, p, "arm64", ctx.caps, "all_caps_arm64");
        tsync_profile_free(p);
        p = NULL;

        /* ppc64le has no archMap entry in the file: no arches listed (native only), as upstream. */
        ctx = ctx_of(SCMP_ARCH_PPC64LE, podman, kmaj, kmin);
        r = tsync_profile_from_docker(doc, &ctx, &p, &err);
        tap_ok(r == 0 && p->n_arches == 0,
               "test_profile_docker_real_file: on ppc64le no archMap entry, no arches listed");
        if (r == 0)
                check_real_file(doc, p, "ppc64le", ctx.caps, "podman_ppc64le");
        tsync_profile_free(p);
        tsync_json_free(doc);
}

/* Which entries survive, for a profile and a container. */
static const struct {
        const char *name;
        const char *profile;
        uint32_t arch;
        uint64_t caps;
        unsigned kmaj, kmin;
        const char *present;
} presence[] = {
#define CAPS_PROFILE                                                                                                   \
        "{'defaultAction':'SCMP_ACT_ERRNO','syscalls':["                                                               \
        "{'names':['mount'],'action':'SCMP_ACT_ALLOW','includes':{'caps':['CAP_SYS_ADMIN','CAP_NET_ADMIN']}},"         \
        "{'names':['umount2'],'action':'SCMP_ACT_ALLOW','excludes':{'caps':['CAP_SYS_ADMIN','CAP_NET_ADMIN']}},"       \
        "{'names':['read'],'action':'SCMP_ACT_ALLOW'}]}"
        { "includes_caps_none_held", CAPS_PROFILE, SCMP_ARCH_X86_64, 0, 6, 1, "1,2" },
        { "includes_caps_needs_all_first_missing", CAPS_PROFILE, SCMP_ARCH_X86_64, BIT(CAP_NET_ADMIN), 6, 1, "2" },
        { "includes_caps_needs_all_second_missing", CAPS_PROFILE, SCMP_ARCH_X86_64, BIT(CAP_SYS_ADMIN), 6, 1, "2" },
        { "includes_caps_all_held", CAPS_PROFILE, SCMP_ARCH_X86_64, BIT(CAP_SYS_ADMIN) | BIT(CAP_NET_ADMIN), 6, 1,
          "0,2" },
        { "excludes_caps_unrelated_held", CAPS_PROFILE, SCMP_ARCH_X86_64, BIT(CAP_CHOWN) | BIT(CAP_KILL), 6, 1, "1,2" },
#define ARCH_PROFILE                                                                                                   \
        "{'defaultAction':'SCMP_ACT_ERRNO','syscalls':["                                                               \
        "{'names':['a'],'action':'SCMP_ACT_ALLOW','includes':{'arches':['amd64']}},"                                   \
        "{'names':['b'],'action':'SCMP_ACT_ALLOW','includes':{'arches':['x86_64']}},"                                  \
        "{'names':['c'],'action':'SCMP_ACT_ALLOW','excludes':{'arches':['amd64']}},"                                   \
        "{'names':['d'],'action':'SCMP_ACT_ALLOW','includes':{'arches':['arm','arm64']}},"                             \
        "{'names':['e'],'action':'SCMP_ACT_ALLOW','includes':{'arches':['amd64','x32','x86']}},"                       \
        "{'names':['f'],'action':'SCMP_ACT_ALLOW','excludes':{'arches':['arm64','loong64']}},"                         \
        "{'names':['g'],'action':'SCMP_ACT_ALLOW','includes':{'arches':[]},'excludes':{'arches':[]}}]}"
/* The same profile and container but for the architecture. Go's names: "amd64"
 * is x86_64, "x86_64" matches nothing. */
#define ARCH_ROW(name, arch, present)                                                                                  \
        {                                                                                                              \
                name, ARCH_PROFILE, arch, 0, 6, 1, present                                                             \
        }
        ARCH_ROW("arches_go_names_on_x86_64", SCMP_ARCH_X86_64, "0,4,5,6"),
        ARCH_ROW("arches_go_names_on_aarch64", SCMP_ARCH_AARCH64, "2,3,6"),
        ARCH_ROW("arches_go_names_on_x86", SCMP_ARCH_X86, "2,4,5,6"),
        ARCH_ROW("arches_go_names_on_arm", SCMP_ARCH_ARM, "2,3,5,6"),
        ARCH_ROW("arches_go_names_on_riscv64", SCMP_ARCH_RISCV64, "2,5,6"),
#define KERNEL_PROFILE                                                                                                 \
        "{'defaultAction':'SCMP_ACT_ERRNO','syscalls':["                                                               \
        "{'names':['a'],'action':'SCMP_ACT_ALLOW','includes':{'minKernel':'5.8'}},"                                    \
        "{'names':['b'],'action':'SCMP_ACT_ERRNO','excludes':{'minKernel':'5.8'}},"                                    \
        "{'names':['c'],'action':'SCMP_ACT_ALLOW','includes':{'minKernel':'5.8'},'excludes':{'minKernel':'6.1'}},"     \
        "{'names':['d'],'action':'SCMP_ACT_ALLOW','includes':{'minKernel':''},'excludes':{'minKernel':null}},"         \
        "{'names':['e'],'action':'SCMP_ACT_ALLOW','includes':{'minKernel':'05.010'}}]}"
/* The same profile and x86_64 container but for the kernel's version. */
#define KERNEL_ROW(name, kmaj, kmin, present)                                                                          \
        {                                                                                                              \
                name, KERNEL_PROFILE, SCMP_ARCH_X86_64, 0, kmaj, kmin, present                                         \
        }
        KERNEL_ROW("min_kernel_older", 5, 7, "1,3"),
        KERNEL_ROW("min_kernel_equal", 5, 8, "0,2,3"),
        KERNEL_ROW("min_kernel_minor_is_a_number_not_text", 5, 10, "0,2,3,4"),
        KERNEL_ROW("min_kernel_next_major", 6, 0, "0,2,3,4"),
        KERNEL_ROW("min_kernel_excludes_at_its_version", 6, 1, "0,3,4"),
        KERNEL_ROW("min_kernel_older_major_newer_minor", 4, 20, "1,3"),
        { "includes_caps_and_arches_both_needed",
          "{'defaultAction':'SCMP_ACT_ERRNO','syscalls':["
          "{'names':['a'],'action':'SCMP_ACT_ALLOW','includes':{'caps':['CAP_SYS_ADMIN'],'arches':['amd64']}},"
          "{'names':['b'],'action':'SCMP_ACT_ALLOW','includes':{'caps':['CAP_SYS_ADMIN'],'arches':['s390x']}},"
          "{'names':['c'],'action':'SCMP_ACT_ALLOW','includes':{'caps':['CAP_SYS_PTRACE'],'arches':['amd64']}}]}",
          SCMP_ARCH_X86_64, BIT(CAP_SYS_ADMIN), 6, 1, "0" },
        { "empty_and_null_conditions_apply",
          "{'defaultAction':'SCMP_ACT_ERRNO','syscalls':["
          "{'names':['a'],'action':'SCMP_ACT_ALLOW','includes':{},'excludes':{}},"
          "{'names':['b'],'action':'SCMP_ACT_ALLOW','includes':null,'excludes':null},"
          "{'names':['c'],'action':'SCMP_ACT_ALLOW','includes':{'caps':[],'arches':null},'excludes':{'caps':null}}]}",
          SCMP_ARCH_X86_64, 0, 6, 1, "0,1,2" },
};

static void test_profile_docker_presence(void)
{
        for (size_t i = 0; i < ARRAY_SIZE(presence); i++) {
                struct tsync_docker_ctx ctx =
                        ctx_of(presence[i].arch, presence[i].caps, presence[i].kmaj, presence[i].kmin);
                struct tsync_err err = { 0 };
                struct tsync_profile *p = NULL;
                char got[256] = "";
                int r = resolve(presence[i].profile, &ctx, &p, &err);
                if (r == 0)
                        present_list(p, got, sizeof(got));
                tap_ok(r == 0 && strcmp(got, presence[i].present) == 0,
                       "test_profile_docker_%s: rules from [%s], want [%s]%s%s", presence[i].name, got,
                       presence[i].present, r < 0 ? ": " : "", r < 0 ? err.msg : "");
                tsync_profile_free(p);
        }
}

/* Profiles to refuse, whatever the container, and the path the message must name. */
static const struct {
        const char *name;
        const char *profile;
        const char *path;
} refused[] = {
        { "not_an_object", "['SCMP_ACT_ALLOW']", "object" },
        { "default_action_missing", "{'syscalls':[]}", "defaultAction" },
        { "default_action_unknown", "{'defaultAction':'SCMP_ACT_FOO'}", "defaultAction: action 'SCMP_ACT_FOO'" },
        { "default_errno_unknown", "{'defaultAction':'SCMP_ACT_ERRNO','defaultErrno':'EFOO'}", "defaultErrno" },
        { "default_errno_on_allow", "{'defaultAction':'SCMP_ACT_ALLOW','defaultErrno':'EPERM'}", "defaultErrno" },
        { "action_unknown",
          "{'defaultAction':'SCMP_ACT_ERRNO','syscalls':[{'names':['read'],'action':'SCMP_ACT_FOO'}]}",
          "syscalls[0].action: action 'SCMP_ACT_FOO'" },
        { "action_missing", "{'defaultAction':'SCMP_ACT_ERRNO','syscalls':[{'names':['read']}]}",
          "syscalls[0].action" },
        { "errno_ret_on_allow",
          "{'defaultAction':'SCMP_ACT_ERRNO','syscalls':[{'names':['read'],'action':'SCMP_ACT_ALLOW','errnoRet':1}]}",
          "syscalls[0].errnoRet" },
        { "errno_on_allow",
          "{'defaultAction':'SCMP_ACT_ERRNO','syscalls':[{'names':['read'],'action':'SCMP_ACT_ALLOW','errno':'EPERM'}]"
          "}",
          "syscalls[0].errno" },
        { "errno_unknown",
          "{'defaultAction':'SCMP_ACT_ERRNO','syscalls':[{'names':['read'],'action':'SCMP_ACT_ERRNO','errno':'EFOO'}]}",
          "syscalls[0].errno: errno 'EFOO'" },
        { "errno_not_in_upstream_table",
          "{'defaultAction':'SCMP_ACT_ERRNO','syscalls':[{'names':['read'],'action':'SCMP_ACT_ERRNO','errno':'ECHRNG'}]"
          "}",
          "syscalls[0].errno" },
        { "errno_past_max_errno",
          "{'defaultAction':'SCMP_ACT_ERRNO','syscalls':[{'names':['read'],'action':'SCMP_ACT_ERRNO','errno':'4096'}]}",
          "syscalls[0].errno" },
        { "errno_libseccomp_refuses",
          "{'defaultAction':'SCMP_ACT_ERRNO','syscalls':[{'names':['read'],'action':'SCMP_ACT_ERRNO','errno':'4095'}]}",
          "syscalls[0].errno: 4095 is above the largest errno a filter can return, 4094" },
        { "errno_ret_libseccomp_refuses",
          "{'defaultAction':'SCMP_ACT_ERRNO','syscalls':[{'names':['read'],'action':'SCMP_ACT_ERRNO','errnoRet':4095}]"
          "}",
          "syscalls[0].errnoRet: 4095 is above the largest errno a filter can return, 4094" },
        { "wait_killable_recv_without_listener",
          "{'defaultAction':'SCMP_ACT_ERRNO','flags':['SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV'],'syscalls':[]}",
          "flags: SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV needs a notification listener" },
        { "errno_negative",
          "{'defaultAction':'SCMP_ACT_ERRNO','syscalls':[{'names':['read'],'action':'SCMP_ACT_ERRNO','errno':'-1'}]}",
          "syscalls[0].errno" },
        { "errno_not_a_string",
          "{'defaultAction':'SCMP_ACT_ERRNO','syscalls':[{'names':['read'],'action':'SCMP_ACT_ERRNO','errno':1}]}",
          "syscalls[0].errno" },
        { "cap_unknown",
          "{'defaultAction':'SCMP_ACT_ERRNO','syscalls':[{'names':['a'],'action':'SCMP_ACT_ALLOW','includes':{'caps':['"
          "CAP_FOO']}}]}",
          "syscalls[0].includes.caps[0]: capability 'CAP_FOO'" },
        { "cap_without_prefix",
          "{'defaultAction':'SCMP_ACT_ERRNO','syscalls':[{'names':['a'],'action':'SCMP_ACT_ALLOW','excludes':{'caps':['"
          "CAP_CHOWN','SYS_ADMIN']}}]}",
          "syscalls[0].excludes.caps[1]: capability 'SYS_ADMIN'" },
        { "cap_lower_case",
          "{'defaultAction':'SCMP_ACT_ERRNO','syscalls':[{'names':['a'],'action':'SCMP_ACT_ALLOW','includes':{'caps':['"
          "cap_sys_admin']}}]}",
          "syscalls[0].includes.caps[0]" },
        { "cap_number",
          "{'defaultAction':'SCMP_ACT_ERRNO','syscalls':[{'names':['a'],'action':'SCMP_ACT_ALLOW','includes':{'caps':['"
          "CAP_21']}}]}",
          "syscalls[0].includes.caps[0]" },
        { "caps_not_an_array",
          "{'defaultAction':'SCMP_ACT_ERRNO','syscalls':[{'names':['a'],'action':'SCMP_ACT_ALLOW','includes':{'caps':'"
          "CAP_SYS_ADMIN'}}]}",
          "syscalls[0].includes.caps" },
        { "caps_item_not_a_string",
          "{'defaultAction':'SCMP_ACT_ERRNO','syscalls':[{'names':['a'],'action':'SCMP_ACT_ALLOW','includes':{'caps':["
          "21]}}]}",
          "syscalls[0].includes.caps[0]" },
        { "includes_not_an_object",
          "{'defaultAction':'SCMP_ACT_ERRNO','syscalls':[{'names':['a'],'action':'SCMP_ACT_ALLOW','includes':'amd64'}]"
          "}",
          "syscalls[0].includes" },
        { "arches_item_not_a_string",
          "{'defaultAction':'SCMP_ACT_ERRNO','syscalls':[{'names':['a'],'action':'SCMP_ACT_ALLOW','excludes':{'arches':"
          "[true]}}]}",
          "syscalls[0].excludes.arches[0]" },
        { "min_kernel_not_a_string",
          "{'defaultAction':'SCMP_ACT_ERRNO','syscalls':[{'names':['a'],'action':'SCMP_ACT_ALLOW','includes':{'"
          "minKernel':5.8}}]}",
          "syscalls[0].includes.minKernel" },
        { "name_and_names",
          "{'defaultAction':'SCMP_ACT_ERRNO','syscalls':[{'name':'read','names':['write'],'action':'SCMP_ACT_ALLOW'}]}",
          "syscalls[0]: both 'name' and 'names'" },
        { "neither_name_nor_names", "{'defaultAction':'SCMP_ACT_ERRNO','syscalls':[{'action':'SCMP_ACT_ALLOW'}]}",
          "syscalls[0]: needs 'names'" },
        { "empty_name_only", "{'defaultAction':'SCMP_ACT_ERRNO','syscalls':[{'name':'','action':'SCMP_ACT_ALLOW'}]}",
          "syscalls[0]" },
        { "names_empty", "{'defaultAction':'SCMP_ACT_ERRNO','syscalls':[{'names':[],'action':'SCMP_ACT_ALLOW'}]}",
          "syscalls[0].names" },
        { "name_not_a_string", "{'defaultAction':'SCMP_ACT_ERRNO','syscalls':[{'name':5,'action':'SCMP_ACT_ALLOW'}]}",
          "syscalls[0].name" },
        { "names_not_an_array",
          "{'defaultAction':'SCMP_ACT_ERRNO','syscalls':[{'names':'read','action':'SCMP_ACT_ALLOW'}]}",
          "syscalls[0].names" },
        { "comment_not_a_string",
          "{'defaultAction':'SCMP_ACT_ERRNO','syscalls':[{'names':['a'],'action':'SCMP_ACT_ALLOW','comment':1}]}",
          "syscalls[0].comment" },
        { "args_bad_op",
          "{'defaultAction':'SCMP_ACT_ERRNO','syscalls':[{'names':['a'],'action':'SCMP_ACT_ALLOW','args':[{'index':0,'"
          "value':1,'op':'SCMP_CMP_FOO'}]}]}",
          "syscalls[0].args[0].op" },
        { "syscalls_not_an_array", "{'defaultAction':'SCMP_ACT_ERRNO','syscalls':{}}", "syscalls" },
        { "syscall_not_an_object",
          "{'defaultAction':'SCMP_ACT_ERRNO','syscalls':[{'names':['a'],'action':'SCMP_ACT_ALLOW'},7]}",
          "syscalls[1]" },
        /* The container below lacks CAP_SYS_ADMIN, so upstream would never look at this entry. */
        { "bad_entry_the_container_skips",
          "{'defaultAction':'SCMP_ACT_ERRNO','syscalls':[{'names':['a'],'action':'SCMP_ACT_FOO','includes':{'caps':['"
          "CAP_SYS_ADMIN']}}]}",
          "syscalls[0].action" },
        { "architectures_and_arch_map",
          "{'defaultAction':'SCMP_ACT_ERRNO','architectures':['SCMP_ARCH_X86'],"
          "'archMap':[{'architecture':'SCMP_ARCH_X86_64','subArchitectures':[]}]}",
          "architectures" },
        { "arch_map_not_an_array", "{'defaultAction':'SCMP_ACT_ERRNO','archMap':{}}", "archMap" },
        { "arch_map_entry_not_an_object", "{'defaultAction':'SCMP_ACT_ERRNO','archMap':['SCMP_ARCH_X86_64']}",
          "archMap[0]" },
        { "arch_map_architecture_missing", "{'defaultAction':'SCMP_ACT_ERRNO','archMap':[{'subArchitectures':[]}]}",
          "archMap[0].architecture" },
        { "arch_map_native_sub_unknown",
          "{'defaultAction':'SCMP_ACT_ERRNO','archMap':[{'architecture':'SCMP_ARCH_X86_64','subArchitectures':['SCMP_"
          "ARCH_FOO']}]}",
          "archMap[0].subArchitectures[0]" },
        { "arch_map_other_sub_not_a_string",
          "{'defaultAction':'SCMP_ACT_ERRNO','archMap':[{'architecture':'SCMP_ARCH_S390X','subArchitectures':[1]}]}",
          "archMap[0].subArchitectures[0]" },
        { "flag_unknown", "{'defaultAction':'SCMP_ACT_ERRNO','flags':['SECCOMP_FILTER_FLAG_FOO']}", "flags[0]" },
        { "listener_path_not_a_string", "{'defaultAction':'SCMP_ACT_ERRNO','listenerPath':1}", "listenerPath" },
};

static const char *const bad_kernels[] = { "5",     "5.8.1", "a.8",  "5.",   ".8",   "0.0", "256.0",
                                           "5.256", "-5.8",  "+5.8", " 5.8", "5.8 ", "5,8", "0x5.8" };

static void test_profile_docker_refused(void)
{
        struct tsync_docker_ctx ctx = ctx_of(SCMP_ARCH_X86_64, 0, 6, 1);

        for (size_t i = 0; i < ARRAY_SIZE(refused); i++) {
                struct tsync_err err = { 0 };
                struct tsync_profile sentinel, *p = &sentinel;
                int r = resolve(refused[i].profile, &ctx, &p, &err);
                tap_ok(r == -EINVAL && err.code == EINVAL && strstr(err.msg, refused[i].path) && p == &sentinel,
                       "test_profile_docker_refuses_%s: r=%d: %s", refused[i].name, r, err.msg);
                if (p != &sentinel)
                        tsync_profile_free(p);
        }
        for (size_t i = 0; i < ARRAY_SIZE(bad_kernels); i++) {
                for (int ex = 0; ex < 2; ex++) {
                        char profile[512], path[64];
                        struct tsync_err err = { 0 };
                        struct tsync_profile *p = NULL;
                        (void)snprintf(profile, sizeof(profile),
                                       "{'defaultAction':'SCMP_ACT_ERRNO','syscalls':[{'names':['a'],"
                                       "'action':'SCMP_ACT_ALLOW','%s':{'minKernel':'%s'}}]}",
                                       ex ? "excludes" : "includes", bad_kernels[i]);
                        (void)snprintf(path, sizeof(path), "syscalls[0].%s.minKernel", ex ? "excludes" : "includes");
                        int r = resolve(profile, &ctx, &p, &err);
                        tap_ok(r == -EINVAL && strstr(err.msg, path) && !p,
                               "test_profile_docker_refuses_min_kernel_'%s'_in_%s: %s", bad_kernels[i],
                               ex ? "excludes" : "includes", err.msg);
                        tsync_profile_free(p);
                }
        }
}

static void test_profile_docker_names_and_errno(void)
{
        struct tsync_docker_ctx ctx = ctx_of(SCMP_ARCH_X86_64, 0, 6, 1);
        struct tsync_err err = { 0 };
        struct tsync_profile *p = NULL;
        const struct tsync_rule *r0, *r1, *r2, *r3, *r4, *r5;

        int r = resolve("{'defaultAction':'SCMP_ACT_ERRNO','defaultErrnoRet':38,'defaultErrno':'EPERM','syscalls':["
                        "{'name':'read','action':'SCMP_ACT_ALLOW'},"
                        "{'names':['write','openat','close'],'action':'SCMP_ACT_ERRNO','errnoRet':1,'errno':'ENOSYS'},"
                        "{'name':'mkdir','names':[],'action':'SCMP_ACT_ERRNO','errno':'38'},"
                        "{'name':'rmdir','names':null,'action':'SCMP_ACT_ERRNO','errnoRet':5,'errno':''},"
                        "{'names':['ptrace'],'action':'SCMP_ACT_ERRNO','comment':'no','args':null},"
                        "{'names':['kill'],'action':'SCMP_ACT_TRACE','errno':'EACCES',"
                        "'args':[{'index':1,'value':9,'valueTwo':0,'op':'SCMP_CMP_EQ'}]}]}",
                        &ctx, &p, &err);
        tap_ok(r == 0, "test_profile_docker_names_and_errno: resolves: %s", r < 0 ? err.msg : "ok");
        if (r < 0)
                return;
        r0 = rule_from(p, 0), r1 = rule_from(p, 1), r2 = rule_from(p, 2), r3 = rule_from(p, 3), r4 = rule_from(p, 4),
        r5 = rule_from(p, 5);
        tap_ok(p->default_action.kind == TSYNC_ACT_ERRNO && p->default_action.data == EPERM,
               "test_profile_docker_default_errno_wins_over_default_errno_ret: ERRNO(%u)", p->default_action.data);
        tap_ok(r0 && r0->n_names == 1 && strcmp(r0->names[0], "read") == 0 && r0->action.kind == TSYNC_ACT_ALLOW,
               "test_profile_docker_name_is_one_syscall");
        tap_ok(r1 && r1->n_names == 3 && strcmp(r1->names[0], "write") == 0 && strcmp(r1->names[2], "close") == 0,
               "test_profile_docker_names_keep_their_order");
        tap_ok(r1 && r1->action.kind == TSYNC_ACT_ERRNO && r1->action.data == ENOSYS,
               "test_profile_docker_errno_wins_over_errno_ret: ERRNO(%u)", r1 ? r1->action.data : 0);
        tap_ok(r2 && r2->n_names == 1 && strcmp(r2->names[0], "mkdir") == 0 && r2->action.data == 38,
               "test_profile_docker_name_with_empty_names_and_numeric_errno");
        tap_ok(r3 && r3->action.data == 5, "test_profile_docker_empty_errno_is_absent: ERRNO(%u)",
               r3 ? r3->action.data : 0);
        tap_ok(r4 && r4->action.data == EPERM && r4->n_args == 0,
               "test_profile_docker_errno_action_without_errno_is_eperm");
        tap_ok(r5 && r5->action.kind == TSYNC_ACT_TRACE && r5->action.data == EACCES && r5->n_args == 1 &&
                       r5->args[0].index == 1 && r5->args[0].value == 9 && r5->args[0].op == TSYNC_OP_EQ,
               "test_profile_docker_trace_takes_errno_and_args");
        tap_ok(p->n_arches == 0 && p->n_rules == 6 && strcmp(p->rules[5].origin, "syscalls[5]") == 0,
               "test_profile_docker_origins_name_the_entry");
        tsync_profile_free(p);
}

static void test_profile_docker_arch_map(void)
{
        struct tsync_docker_ctx ctx = ctx_of(SCMP_ARCH_X86_64, 0, 6, 1);
        struct tsync_err err = { 0 };
        struct tsync_profile *p = NULL;
        int r;

        /* The first entry for the native arch wins; entries for unknown ports are skipped. */
        r = resolve("{'defaultAction':'SCMP_ACT_ERRNO','archMap':["
                    "{'architecture':'SCMP_ARCH_LOONGARCH64','subArchitectures':['SCMP_ARCH_FOO']},"
                    "{'architecture':'SCMP_ARCH_X86_64','subArchitectures':['SCMP_ARCH_X86']},"
                    "{'architecture':'SCMP_ARCH_X86_64','subArchitectures':['SCMP_ARCH_X32']}],"
                    "'flags':['SECCOMP_FILTER_FLAG_LOG'],'listenerPath':'/run/l.sock','listenerMetadata':'m'}",
                    &ctx, &p, &err);
        tap_ok(r == 0 && p->n_arches == 2 && p->arches[0] == SCMP_ARCH_X86_64 && p->arches[1] == SCMP_ARCH_X86,
               "test_profile_docker_arch_map_first_native_entry_wins: %s", r < 0 ? err.msg : "ok");
        tap_ok(r == 0 && p->flags != 0 && p->listener_path && strcmp(p->listener_path, "/run/l.sock") == 0 &&
                       p->listener_metadata && strcmp(p->listener_metadata, "m") == 0,
               "test_profile_docker_flags_and_listener_are_kept");
        tsync_profile_free(p);
        p = NULL;

        /* Upstream compares "SCMP_ARCH_X86_64" literally: the short spelling is another machine. */
        r = resolve(
                "{'defaultAction':'SCMP_ACT_ERRNO','archMap':[{'architecture':'x86_64','subArchitectures':['x86']}]}",
                &ctx, &p, &err);
        tap_ok(r == 0 && p->n_arches == 0, "test_profile_docker_arch_map_short_spelling_does_not_match");
        tsync_profile_free(p);
        p = NULL;

        /* "architectures" alone (the older form), and an empty one beside archMap. */
        r = resolve("{'defaultAction':'SCMP_ACT_ERRNO','architectures':['SCMP_ARCH_X86_64','SCMP_ARCH_X86']}", &ctx, &p,
                    &err);
        tap_ok(r == 0 && p->n_arches == 2 && has_arch(p, SCMP_ARCH_X86), "test_profile_docker_architectures_alone");
        tsync_profile_free(p);
        p = NULL;
        r = resolve("{'defaultAction':'SCMP_ACT_ERRNO','architectures':[],"
                    "'archMap':[{'architecture':'SCMP_ARCH_X86_64','subArchitectures':null}]}",
                    &ctx, &p, &err);
        tap_ok(r == 0 && p->n_arches == 1 && p->arches[0] == SCMP_ARCH_X86_64,
               "test_profile_docker_empty_architectures_beside_arch_map: %s", r < 0 ? err.msg : "ok");
        tsync_profile_free(p);
}

static void test_profile_docker_is_docker(void)
{
        static const struct {
                const char *profile;
                bool docker;
        } cases[] = {
                { "{'defaultAction':'SCMP_ACT_ERRNO','architectures':['SCMP_ARCH_X86_64'],"
                  "'syscalls':[{'names':['read'],'action':'SCMP_ACT_ALLOW','args':[]}]}",
                  false },
                { "{'defaultAction':'SCMP_ACT_ALLOW'}", false },
                { "{'defaultAction':'SCMP_ACT_ERRNO','syscalls':'x'}", false },
                { "[{'archMap':[]}]", false },
                { "{'defaultAction':'SCMP_ACT_ERRNO','archMap':[]}", true },
                { "{'defaultAction':'SCMP_ACT_ERRNO','defaultErrno':'ENOSYS'}", true },
                { "{'defaultAction':'SCMP_ACT_ERRNO','syscalls':[{'names':['a'],'action':'SCMP_ACT_ALLOW'},"
                  "{'name':'read','action':'SCMP_ACT_ALLOW'}]}",
                  true },
                { "{'defaultAction':'SCMP_ACT_ERRNO','syscalls':[{'names':['a'],'action':'SCMP_ACT_ALLOW','includes':{}"
                  "}]}",
                  true },
                { "{'defaultAction':'SCMP_ACT_ERRNO','syscalls':[{'names':['a'],'action':'SCMP_ACT_ALLOW','excludes':{}"
                  "}]}",
                  true },
        };
        for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
                struct tsync_json *doc = parse_sq(cases[i].profile);
                tap_ok(doc && tsync_profile_is_docker(doc) == cases[i].docker,
                       "test_profile_docker_is_docker_%zu: %s (%s)", i, cases[i].docker ? "yes" : "no",
                       cases[i].profile);
                tsync_json_free(doc);
        }
        tap_ok(!tsync_profile_is_docker(NULL), "test_profile_docker_is_docker_null");
}

/* Unknown keys at every level of the format, through the reader the CLI and hook use. */
static int load_sq(const char *sq, enum tsync_keys keys, struct tsync_warnings *w, struct tsync_err *err)
{
        struct tsync_json *doc = parse_sq(sq);
        struct tsync_profile *p = NULL;
        struct tsync_source_opts so = { .format = TSYNC_FORMAT_DOCKER, .have_caps = true, .keys = keys, .warnings = w };
        if (!doc)
                return tsync_error(err, EBADMSG, "(test) profile text does not parse");
        int r = tsync_source_from_json(doc, &so, &p, NULL, err);
        tsync_profile_free(p);
        tsync_json_free(doc);
        return r;
}

static const struct {
        const char *name;
        const char *sq;
        const char *message;
} docker_unknown[] = {
        { "top",
          "{'defaultAction': 'SCMP_ACT_ALLOW', 'archmap': [], 'syscalls': [{'name': 'getcwd', 'action': "
          "'SCMP_ACT_ERRNO'}]}",
          "archmap: unknown key (did you mean 'archMap'?)" },
        { "rule",
          "{'defaultAction': 'SCMP_ACT_ALLOW', 'syscalls': [{'name': 'getcwd', 'action': 'SCMP_ACT_ERRNO', 'comments': "
          "''}]}",
          "syscalls[0].comments: unknown key (did you mean 'comment'?)" },
        { "arg",
          "{'defaultAction': 'SCMP_ACT_ALLOW', 'syscalls': [{'name': 'getcwd', 'action': 'SCMP_ACT_ERRNO', 'args': "
          "[{'index': 0, 'value': 1, 'op': 'SCMP_CMP_EQ', 'indx': 1}]}]}",
          "syscalls[0].args[0].indx: unknown key (did you mean 'index'?)" },
        { "includes",
          "{'defaultAction': 'SCMP_ACT_ALLOW', 'syscalls': [{'name': 'getcwd', 'action': 'SCMP_ACT_ERRNO', "
          "'includes': {'cap': ['CAP_SYS_ADMIN']}}]}",
          "syscalls[0].includes.cap: unknown key (did you mean 'caps'?)" },
        { "excludes",
          "{'defaultAction': 'SCMP_ACT_ALLOW', 'syscalls': [{'name': 'getcwd', 'action': 'SCMP_ACT_ERRNO', "
          "'excludes': {'minkernel': '4.8'}}]}",
          "syscalls[0].excludes.minkernel: unknown key (did you mean 'minKernel'?)" },
        { "arch_map",
          "{'defaultAction': 'SCMP_ACT_ALLOW', 'archMap': [{'architecture': 'SCMP_ARCH_X86_64', "
          "'subArchitecture': ['SCMP_ARCH_X86']}]}",
          "archMap[0].subArchitecture: unknown key (did you mean 'subArchitectures'?)" },
};

static void test_profile_docker_unknown_keys(void)
{
        for (size_t i = 0; i < sizeof(docker_unknown) / sizeof(docker_unknown[0]); i++) {
                struct tsync_err err = { 0 };
                struct tsync_warnings w = { 0 };
                int r = load_sq(docker_unknown[i].sq, TSYNC_KEYS_AUTO, &w, &err);
                tap_ok(r == -EINVAL && strcmp(err.msg, docker_unknown[i].message) == 0,
                       "test_profile_docker_unknown_key_is_an_error_%s: %d '%s'", docker_unknown[i].name, r, err.msg);
                memset(&err, 0, sizeof(err));
                r = load_sq(docker_unknown[i].sq, TSYNC_KEYS_WARN, &w, &err);
                tap_ok(r == 0 && w.len == 1 && strstr(w.msgs[0], "unknown key, ignored as runc ignores it"),
                       "test_profile_docker_unknown_key_can_warn_%s: %d %zu %s", docker_unknown[i].name, r, w.len,
                       w.len ? w.msgs[0] : err.msg);
                tsync_warnings_clear(&w);
        }

        /* Every key of the format (moby's profiles/seccomp/default.json and containers-common use them all). */
        static const char every[] =
                "{'defaultAction': 'SCMP_ACT_ERRNO', 'defaultErrnoRet': 1, 'defaultErrno': 'EPERM', 'archMap': "
                "[{'architecture': 'SCMP_ARCH_X86_64', 'subArchitectures': ['SCMP_ARCH_X86', 'SCMP_ARCH_X32']}], "
                "'flags': ['SECCOMP_FILTER_FLAG_LOG'], 'listenerPath': null, 'listenerMetadata': null, 'syscalls': ["
                "{'names': ['clone'], 'action': 'SCMP_ACT_ALLOW', 'args': [{'index': 0, 'value': 2114060288, "
                "'valueTwo': 0, "
                "'op': 'SCMP_CMP_MASKED_EQ'}], 'comment': 'x', 'includes': {'minKernel': '4.8'}, 'excludes': "
                "{'caps': ['CAP_SYS_ADMIN'], 'arches': ['s390x']}}, "
                "{'name': 'getcwd', 'action': 'SCMP_ACT_ERRNO', 'errnoRet': 1, 'errno': 'EPERM'}]}";
        struct tsync_err err = { 0 };
        struct tsync_warnings w = { 0 };
        int r = load_sq(every, TSYNC_KEYS_AUTO, &w, &err);
        tap_ok(r == 0 && w.len == 0, "test_profile_docker_every_format_key_passes: %d %s", r, err.msg);
        tsync_warnings_clear(&w);

        /* Debian's containers-common profile: no unknown key. */
        struct tsync_json *doc = NULL;
        if (tsync_json_parse_file(SECCOMP_JSON, NULL, &doc, &err) < 0) {
                tap_ok(1, "test_profile_docker_real_file_keys # SKIP %s", err.msg);
                return;
        }
        r = tsync_profile_check_keys(doc, true, false, "", &w, &err);
        tap_ok(r == 0 && w.len == 0, "test_profile_docker_real_file_has_only_known_keys: %d %s", r, r ? err.msg : "");
        tsync_json_free(doc);
        tsync_warnings_clear(&w);
}

int main(void)
{
        test_profile_docker_real_file();
        test_profile_docker_presence();
        test_profile_docker_names_and_errno();
        test_profile_docker_arch_map();
        test_profile_docker_refused();
        test_profile_docker_is_docker();
        test_profile_docker_unknown_keys();
        return tap_done();
}
