/* --arch for every architecture libseccomp knows (issue 38): every syscall name of the shipped
 * profiles and of containers-common's (Podman's default), compiled for that architecture in one
 * rule, and the program run on each name at that architecture's number gives the rule's action.
 * A name the architecture reaches through socketcall(2) or ipc(2) is run there (its call number
 * in the first argument); one it lacks must be said in a warning, never left out silently. The
 * numbers are libseccomp's, held against scmp_sys_resolver (Debian's `seccomp` package), an
 * outside program, where it is installed. This machine's own architecture leaves out the names it
 * lacks without a word, as runc and crun do (Podman's profile names dozens). An architecture of
 * the other byte order is refused by name: libseccomp 2.5.4 exports its programs with some returns
 * in this machine's order (the copies it makes for long jumps), which this test found. */
#include <errno.h>
#include <glob.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <seccomp.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "shared/arches.h"
#include "shared/bpf.h"
#include "shared/cleanup.h"
#include "tap.h"
#include "translate/compile.h"
#include "translate/source.h"
#include "util/json.h"

#define MAX_NAMES 2048
/* libseccomp's pseudo-numbers (as compile.c reads them): above this, a call some
 * architectures reach through socketcall (-101 and on) or ipc (-201 and on). */
#define PSEUDO_ABSENT_BELOW (-300)

struct names {
        char *v[MAX_NAMES];
        size_t n;
};

static void names_add(struct names *ns, const char *name)
{
        for (size_t i = 0; i < ns->n; i++)
                if (strcmp(ns->v[i], name) == 0)
                        return;
        if (ns->n < MAX_NAMES)
                ns->v[ns->n++] = strdup(name);
}

/* Every string of .syscalls[].names[] (OCI and Docker forms alike). */
static int names_from_file(const char *path, struct names *ns)
{
        struct tsync_err err = { 0 };
        _cleanup_json_ struct tsync_json *doc = NULL;
        if (tsync_json_parse_file(path, NULL, &doc, &err) < 0) {
                tap_diag("%s: %s", path, err.msg);
                return -1;
        }
        const struct tsync_json *rules = tsync_json_get(doc, "syscalls");
        for (size_t i = 0; rules && rules->type == TSYNC_JSON_ARRAY && i < rules->u.array.len; i++) {
                const struct tsync_json *list = tsync_json_get(rules->u.array.items[i], "names");
                for (size_t j = 0; list && list->type == TSYNC_JSON_ARRAY && j < list->u.array.len; j++)
                        if (list->u.array.items[j]->type == TSYNC_JSON_STRING)
                                names_add(ns, list->u.array.items[j]->u.string.ptr);
        }
        return 0;
}

/* One rule over every name: action, the default the other. */
static struct tsync_profile *profile_of(const struct names *ns, const char *def, const char *action)
{
        char *text = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&text, &len);
        if (!f)
                return NULL;
        /* ERRNO's errno: EPERM (1), for the rule's and the default's alike. */
        bool rule_errno = strcmp(action, "SCMP_ACT_ERRNO") == 0;
        fprintf(f, "{\"defaultAction\": \"%s\", %s\"syscalls\": [{\"action\": \"%s\", %s\"names\": [", def,
                rule_errno ? "" : "\"defaultErrnoRet\": 1, ", action, rule_errno ? "\"errnoRet\": 1, " : "");
        for (size_t i = 0; i < ns->n; i++)
                fprintf(f, "%s\"%s\"", i ? ", " : "", ns->v[i]);
        fprintf(f, "]}]}");
        if (fclose(f) != 0)
                return NULL;
        struct tsync_err err = { 0 };
        _cleanup_json_ struct tsync_json *doc = NULL;
        struct tsync_profile *p = NULL;
        struct tsync_source_opts so = { .format = TSYNC_FORMAT_OCI };
        if (tsync_json_parse(text, len, NULL, &doc, &err) < 0 || tsync_source_from_json(doc, &so, &p, NULL, &err) < 0)
                tap_diag("profile: %s", err.msg);
        free(text);
        return p;
}

static char *joined(const struct tsync_warnings *w)
{
        size_t len = 1;
        for (size_t i = 0; i < w->len; i++)
                len += strlen(w->msgs[i]) + 1;
        char *s = calloc(1, len);
        for (size_t i = 0; s && i < w->len; i++) {
                strcat(s, w->msgs[i]);
                strcat(s, "\n");
        }
        return s;
}

/* What prog does with name on the architecture of row: 0 and *ret the action, 1 when the
 * architecture lacks it, -1 when it cannot be run (said in why). */
static int run_name(const struct tsync_program *prog, const struct tsync_arch_def *row, const char *name, uint32_t *ret,
                    char *why, size_t size)
{
        int nr = seccomp_syscall_resolve_name_arch(row->token, name);
        struct tsync_bpf_input in = { .nr = nr, .arch = row->audit };
        if (nr == __NR_SCMP_ERROR || nr < PSEUDO_ABSENT_BELOW)
                return 1;
        if (nr < 0) {
                /* socket calls from -101, IPC calls from -201: the multiplexer and the call's number. */
                const char *mux = nr > -200 ? "socketcall" : "ipc";
                in.nr = seccomp_syscall_resolve_name_arch(row->token, mux);
                in.args[0] = (uint64_t)(nr > -200 ? -nr - 100 : -nr - 200);
                /* No multiplexer either (recv on aarch64): the architecture lacks it. */
                if (in.nr < 0)
                        return 1;
        }
        struct tsync_bpf_result res;
        struct tsync_err err = { 0 };
        if (tsync_bpf_simulate(prog->insns, prog->len, &in, &res, &err) < 0) {
                (void)snprintf(why, size, "%s: %.300s", name, err.msg);
                return -1;
        }
        *ret = res.ret;
        return 0;
}

/* Compiles p for row and runs every name: each present name gets want; each absent one is
 * named in a warning (absent: how many). */
static bool judge(const struct tsync_profile *p, const struct names *ns, const struct tsync_arch_def *row,
                  uint32_t want, size_t *absent, char *why, size_t size)
{
        struct tsync_compile_opts opts = { .native_arch = row->token };
        struct tsync_warnings w = { 0 };
        struct tsync_err err = { 0 };
        _cleanup_program_ struct tsync_program *prog = NULL;
        if (tsync_compile(p, &opts, &prog, &w, &err) < 0) {
                (void)snprintf(why, size, "compile: %.300s", err.msg);
                tsync_warnings_clear(&w);
                return false;
        }
        _cleanup_free_ char *said = joined(&w);
        tsync_warnings_clear(&w);
        bool ok = said != NULL, foreign = row->token != seccomp_arch_native();
        *absent = 0;
        for (size_t i = 0; ok && i < ns->n; i++) {
                uint32_t got = 0;
                int r = run_name(prog, row, ns->v[i], &got, why, size);
                if (r < 0) {
                        ok = false;
                } else if (r == 1) {
                        char quoted[128];
                        (void)snprintf(quoted, sizeof(quoted), "'%s'", ns->v[i]);
                        (*absent)++;
                        if (foreign && !strstr(said, quoted)) {
                                (void)snprintf(why, size, "%s: lacking, and not said", ns->v[i]);
                                ok = false;
                        }
                } else if (got != want) {
                        (void)snprintf(why, size, "%s (nr %d): 0x%08x, not 0x%08x", ns->v[i],
                                       seccomp_syscall_resolve_name_arch(row->token, ns->v[i]), got, want);
                        ok = false;
                }
        }
        return ok;
}

/* scmp_sys_resolver's number for every name on row, one process per name, by a shell loop
 * over a file of the names; NULL when it cannot be run. */
static int *resolver_numbers(const struct names *ns, const char *names_file, const struct tsync_arch_def *row)
{
        char cmd[512];
        (void)snprintf(cmd, sizeof(cmd),
                       "while read -r n; do scmp_sys_resolver -a %s \"$n\" 2>/dev/null || echo x; done <%s", row->name,
                       names_file);
        FILE *f = popen(cmd, "r");
        if (!f)
                return NULL;
        int *v = calloc(ns->n, sizeof(*v));
        char line[64];
        size_t i = 0;
        for (; v && i < ns->n && fgets(line, sizeof(line), f); i++)
                v[i] = line[0] == 'x' ? __NR_SCMP_ERROR : atoi(line);
        if (pclose(f) != 0 || i != ns->n) {
                free(v);
                return NULL;
        }
        return v;
}

int main(void)
{
        struct names all = { 0 };
        const char *top = getenv("TSYNC_TOP") ? getenv("TSYNC_TOP") : ".";
        char pattern[4096];
        (void)snprintf(pattern, sizeof(pattern), "%s/configs/profiles/*.json", top);
        glob_t g;
        size_t files = 0;
        if (glob(pattern, 0, NULL, &g) == 0) {
                for (size_t i = 0; i < g.gl_pathc; i++)
                        files += names_from_file(g.gl_pathv[i], &all) == 0;
                globfree(&g);
        }
        tap_ok(files > 0 && all.n > 0, "test_compile_arches_reads_the_shipped_profiles (%zu files, %zu names)", files,
               all.n);
        static const char podman[] = "/usr/share/containers/seccomp.json";
        if (access(podman, R_OK) == 0)
                tap_ok(names_from_file(podman, &all) == 0,
                       "test_compile_arches_reads_containers_commons_profile "
                       "(%zu names in all)",
                       all.n);
        else
                tap_skip("no /usr/share/containers/seccomp.json (containers-common)",
                         "test_compile_arches_reads_containers_commons_profile");

        struct names six = { 0 };
        static const char *const six_names[] = { "read", "mkdirat", "openat", "socket", "ptrace", "bpf" };
        for (size_t i = 0; i < 6; i++)
                names_add(&six, six_names[i]);

        _cleanup_profile_ struct tsync_profile *deny = profile_of(&all, "SCMP_ACT_ALLOW", "SCMP_ACT_ERRNO");
        _cleanup_profile_ struct tsync_profile *allow = profile_of(&all, "SCMP_ACT_ERRNO", "SCMP_ACT_ALLOW");
        _cleanup_profile_ struct tsync_profile *deny_six = profile_of(&six, "SCMP_ACT_ALLOW", "SCMP_ACT_ERRNO");
        tap_ok(deny && allow && deny_six, "test_compile_arches_builds_its_profiles");
        if (!deny || !allow || !deny_six)
                return tap_done();

        /* The outside reference: a file of the names, read by a shell loop. */
        char names_file[] = "/tmp/tsync-arch-names.XXXXXX";
        int fd = mkstemp(names_file);
        FILE *nf = fd >= 0 ? fdopen(fd, "w") : NULL;
        for (size_t i = 0; nf && i < all.n; i++)
                fprintf(nf, "%s\n", all.v[i]);
        bool have_names = nf && fclose(nf) == 0;
        const char *preload = getenv("LD_PRELOAD");
        const char *no_ref = !have_names ? "cannot write the names' file"
                             : access("/usr/bin/scmp_sys_resolver", X_OK) != 0
                                     ? "no scmp_sys_resolver (apt-get install seccomp)"
                             : preload && strstr(preload, "vgpreload") ? "under valgrind (thousands of processes)"
                                                                       : NULL;

        size_t n;
        const struct tsync_arch_def *rows = tsync_arches(&n);
        for (size_t a = 0; a < n; a++) {
                const struct tsync_arch_def *row = &rows[a];
                if (!row->name)
                        continue; /* disassembled only: libseccomp does not know it */
                char why[512] = "";
                size_t absent = 0, absent_allow = 0, absent_six = 0;
                if (tsync_audit_big_endian(row->audit) != tsync_audit_big_endian(TSYNC_NATIVE_AUDIT_ARCH)) {
                        struct tsync_compile_opts opts = { .native_arch = row->token };
                        struct tsync_err err = { 0 };
                        struct tsync_warnings w = { 0 };
                        _cleanup_program_ struct tsync_program *prog = NULL;
                        int r = tsync_compile(deny_six, &opts, &prog, &w, &err);
                        tsync_warnings_clear(&w);
                        tap_ok(r == -EOPNOTSUPP && strstr(err.msg, row->spec_name) && strstr(err.msg, "byte order"),
                               "test_compile_arches_%s_of_the_other_byte_order_is_refused_by_name (%s)", row->name,
                               err.msg);
                        continue;
                }
                bool ok = judge(deny, &all, row, SECCOMP_RET_ERRNO | 1, &absent, why, sizeof(why));
                tap_ok(ok,
                       "test_compile_arches_%s_denies_every_name_it_has_and_says_the_rest (%zu names, %zu lacking) %s",
                       row->name, all.n, absent, why);
                why[0] = '\0';
                ok = judge(allow, &all, row, SECCOMP_RET_ALLOW, &absent_allow, why, sizeof(why));
                tap_ok(ok, "test_compile_arches_%s_allows_every_name_it_has_under_a_deny_default %s", row->name, why);
                why[0] = '\0';
                ok = judge(deny_six, &six, row, SECCOMP_RET_ERRNO | 1, &absent_six, why, sizeof(why));
                tap_ok(ok && absent_six == 0, "test_compile_arches_%s_denies_the_six_names (%zu lacking) %s", row->name,
                       absent_six, why);
                if (no_ref) {
                        tap_skip(no_ref, "test_compile_arches_%s_numbers_are_scmp_sys_resolvers", row->name);
                        continue;
                }
                _cleanup_free_ int *ref = resolver_numbers(&all, names_file, row);
                size_t differ = 0;
                why[0] = '\0';
                for (size_t i = 0; ref && i < all.n; i++) {
                        int ours = seccomp_syscall_resolve_name_arch(row->token, all.v[i]);
                        if (ours != ref[i] && differ++ == 0)
                                (void)snprintf(why, sizeof(why), "%s: %d, scmp_sys_resolver %d", all.v[i], ours,
                                               ref[i]);
                }
                tap_ok(ref && differ == 0, "test_compile_arches_%s_numbers_are_scmp_sys_resolvers (%zu differ) %s",
                       row->name, differ, ref ? why : "(it could not be run)");
        }
        if (have_names)
                (void)unlink(names_file);
        for (size_t i = 0; i < all.n; i++)
                free(all.v[i]);
        for (size_t i = 0; i < six.n; i++)
                free(six.v[i]);
        return tap_done();
}
