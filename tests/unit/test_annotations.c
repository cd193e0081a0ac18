/* The one annotation table (hook/facts/annotations.c) against what must agree
 * with it: the hooks.d `when` regexes (configs/hooks.d/NAME.json.in), the man
 * page's list (packaging/man/oci-seccomp-tsync.5.scd), the front-end matrix
 * (tests/integration/test_frontends.sh), and what each front end accepts,
 * refuses and reads. */
#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "facts/annotations.h"
#include "plan/plan.h"
#include "shared/cleanup.h"
#include "tap.h"
#include "unit.h"
#include "util/fileio.h"

static const char *top(void)
{
        const char *t = getenv("TSYNC_TOP");
        return t ? t : ".";
}

static bool under_prefix(const char *name)
{
        return strncmp(name, TSYNC_ANNOTATION_PREFIX, strlen(TSYNC_ANNOTATION_PREFIX)) == 0;
}

/* Rows the hooks.d files must name: what a user sets to ask for us; the
 * poststop file, only those that need poststop under an engine. */
static bool hooks_d_row(const struct tsync_annotation_def *a, bool poststop)
{
        return a->setter == TSYNC_ANNOTATION_BY_USER && a->asks_for_us && (!poststop || a->needs_poststop);
}

static void test_annotations_table_is_consistent(void)
{
        for (size_t i = 0; i < tsync_annotation_count; i++) {
                const struct tsync_annotation_def *a = &tsync_annotation_table[i];
                tap_ok(tsync_annotation_find(a->name) == a, "%s: found, once", a->name);
                if (a->setter == TSYNC_ANNOTATION_BY_US) {
                        tap_ok(under_prefix(a->name) && a->asks_for_us && !a->value,
                               "%s: ours, under our prefix, asks for us (the rewrite refuses it from an engine)",
                               a->name);
                        continue;
                }
                tap_ok(a->value && a->value[0], "%s: its value is described for the help text", a->name);
                /* Podman reaches us only through precreate, for every row it matches. */
                tap_ok(!hooks_d_row(a, false) || !a->refused[TSYNC_FRONTEND_PRECREATE], "%s: precreate honours it",
                       a->name);
                tap_ok(!a->asks_for_us || under_prefix(a->name), "%s: asks for us only under our prefix", a->name);
                tap_ok(!a->needs_poststop || a->asks_for_us, "%s: needs poststop only when it asks for us", a->name);
        }
        tap_ok(!tsync_annotation_find(TSYNC_ANNOTATION_PREFIX "layer"), "no row for a misspelt name");
}

/* "^io\\.oci-seccomp-tsync\\.(a|b|c)$" into its alternatives; 0 or -1. */
static int alternatives(const char *re, char names[][32], size_t max, size_t *ret_n)
{
        static const char head[] = "^io\\.oci-seccomp-tsync\\.(";
        size_t n = 0, len = strlen(re);
        if (strncmp(re, head, strlen(head)) != 0 || len < strlen(head) + 2 || strcmp(re + len - 2, ")$") != 0)
                return -1;
        const char *p = re + strlen(head), *end = re + len - 2;
        while (p < end) {
                const char *bar = memchr(p, '|', (size_t)(end - p));
                size_t l = (size_t)((bar ? bar : end) - p);
                if (n == max || l == 0 || l >= 32)
                        return -1;
                memcpy(names[n], p, l);
                names[n++][l] = '\0';
                p = bar ? bar + 1 : end;
        }
        *ret_n = n;
        return 0;
}

/* precreate's and createRuntime's regex: every name under our prefix, the
 * table's and any other (issue 35: a misspelt key must reach precreate, which
 * refuses it, or Podman runs the container as if it had not been written), and
 * nothing else (a container that names nothing of ours is not touched). */
static void check_prefix_regex(const char *path, const char *re)
{
        regex_t rx;
        if (!tap_ok(regcomp(&rx, re, REG_EXTENDED | REG_NOSUB) == 0, "%s: the regex compiles", path))
                return;
        for (size_t i = 0; i < tsync_annotation_count; i++) {
                const char *name = tsync_annotation_table[i].name;
                bool m = regexec(&rx, name, 0, NULL, 0) == 0;
                tap_ok(m == under_prefix(name), "%s: %s %s", path, name,
                       under_prefix(name) ? "matches" : "does not match (not under our prefix)");
        }
        static const char *const ours[] = { TSYNC_ANNOTATION_PREFIX "layer", TSYNC_ANNOTATION_PREFIX "layers.x",
                                            TSYNC_ANNOTATION_PREFIX "Layers", TSYNC_ANNOTATION_PREFIX "" };
        for (size_t i = 0; i < ARRAY_SIZE(ours); i++)
                tap_ok(regexec(&rx, ours[i], 0, NULL, 0) == 0, "%s: '%s' (misspelt, ours) matches", path, ours[i]);
        static const char *const others[] = { "x." TSYNC_ANNOTATION_PREFIX "layers", "io.oci-seccomp-tsyncXlayers",
                                              "io.oci-seccomp-tsync", "org.example.layers" };
        for (size_t i = 0; i < ARRAY_SIZE(others); i++)
                tap_ok(regexec(&rx, others[i], 0, NULL, 0) != 0, "%s: %s does not match", path, others[i]);
        regfree(&rx);
}

/* The regex of one hooks.d file, checked against the table; the regex into
 * ret (for the man page's copy). */
static void check_hooks_d_file(const char *path, bool poststop, char *ret, size_t size)
{
        struct tsync_err err = { 0 };
        _cleanup_json_ struct tsync_json *doc = NULL;
        if (tsync_json_parse_file(path, NULL, &doc, &err) < 0) {
                tap_ok(0, "%s: %s", path, err.msg);
                return;
        }
        const struct tsync_json *when = tsync_json_get(tsync_json_get(doc, "when"), "annotations");
        if (!tap_ok(when && when->type == TSYNC_JSON_OBJECT && when->u.object.len == 1,
                    "%s: when.annotations has one regex", path))
                return;
        const char *re = when->u.object.keys[0];
        const struct tsync_json *v = when->u.object.values[0];
        tap_ok(v->type == TSYNC_JSON_STRING && strcmp(v->u.string.ptr, ".*") == 0, "%s: any value", path);
        (void)snprintf(ret, size, "%s", re);
        if (!poststop) {
                check_prefix_regex(path, re);
                return;
        }

        /* Exactly the user's rows that need poststop, by name... */
        char names[16][32];
        size_t n = 0;
        if (!tap_ok(alternatives(re, names, 16, &n) == 0, "%s: '%s' is ^io\\.oci-seccomp-tsync\\.(a|b|...)$", path, re))
                return;
        size_t want = 0;
        for (size_t i = 0; i < tsync_annotation_count; i++)
                want += hooks_d_row(&tsync_annotation_table[i], poststop);
        bool same = n == want;
        for (size_t k = 0; same && k < n; k++) {
                char full[128];
                (void)snprintf(full, sizeof(full), "%s%.31s", TSYNC_ANNOTATION_PREFIX, names[k]);
                const struct tsync_annotation_def *a = tsync_annotation_find(full);
                same = a && hooks_d_row(a, poststop);
                if (!same)
                        tap_diag("'%s' in the regex is not a user's row of the table that asks for us", full);
        }
        tap_ok(same, "%s: its alternatives are the table's %zu user rows that ask for us%s", path, want,
               poststop ? " and need poststop" : "");

        /* ... and as Podman matches it (Go's regexp, here POSIX ERE: the same for this form). */
        regex_t rx;
        if (!tap_ok(regcomp(&rx, re, REG_EXTENDED | REG_NOSUB) == 0, "%s: the regex compiles", path))
                return;
        for (size_t i = 0; i < tsync_annotation_count; i++) {
                const struct tsync_annotation_def *a = &tsync_annotation_table[i];
                bool m = regexec(&rx, a->name, 0, NULL, 0) == 0;
                tap_ok(m == hooks_d_row(a, poststop), "%s: %s %s", path, a->name,
                       hooks_d_row(a, poststop)
                               ? "matches"
                               : "does not match (not the user's, asks for nothing, or not for poststop)");
        }
        static const char *const others[] = { TSYNC_ANNOTATION_PREFIX "layer", TSYNC_ANNOTATION_PREFIX "layers.x",
                                              "x." TSYNC_ANNOTATION_PREFIX "layers", "io.oci-seccomp-tsyncXlayers" };
        for (size_t i = 0; i < ARRAY_SIZE(others); i++)
                tap_ok(regexec(&rx, others[i], 0, NULL, 0) != 0, "%s: %s does not match", path, others[i]);
        regfree(&rx);
}

/* re: the precreate and createRuntime files' regex; post_re: poststop's. */
static void test_annotations_hooks_d_regexes_are_the_user_rows(char *re, size_t size, char *post_re, size_t post_size)
{
        char pattern[4200];
        (void)snprintf(pattern, sizeof(pattern), "%s/configs/hooks.d/*.json.in", top());
        glob_t g;
        if (!tap_ok(glob(pattern, 0, NULL, &g) == 0 && g.gl_pathc == 3, "three hooks.d files in %s", pattern))
                return;
        bool first = true;
        for (size_t i = 0; i < g.gl_pathc; i++) {
                char one[256] = "";
                bool poststop = strstr(g.gl_pathv[i], "-poststop.json.in") != NULL;
                check_hooks_d_file(g.gl_pathv[i], poststop, one, sizeof(one));
                if (poststop)
                        (void)snprintf(post_re, post_size, "%s", one);
                else if (first)
                        (void)snprintf(re, size, "%s", one);
                else
                        tap_ok(strcmp(re, one) == 0, "%s: the same regex as precreate's", g.gl_pathv[i]);
                first = first && poststop;
        }
        tap_ok(post_re[0] != '\0', "a poststop file among them");
        globfree(&g);
}

/* re as the man page shows it: the JSON text of the regex ('\' written
 * '\\'), then scdoc's escaping of each '\'. */
static void man_form(const char *re, char *ret, size_t size)
{
        size_t w = 0;
        for (const char *p = re; *p && w + 5 < size; p++)
                for (int k = 0; k < (*p == '\\' ? 4 : 1); k++)
                        ret[w++] = *p;
        ret[w] = '\0';
}

/* The ANNOTATIONS section names every row as "*NAME*" on a line of its own,
 * and no other of ours; the hooks.d regexes appear as written in the files. */
static void test_annotations_man_page_lists_the_table(const char *re, const char *post_re)
{
        char path[4200];
        (void)snprintf(path, sizeof(path), "%s/packaging/man/oci-seccomp-tsync.5.scd", top());
        FILE *f = fopen(path, "re");
        if (!tap_ok(f != NULL, "%s: %s", path, f ? "" : strerror(errno)))
                return;
        bool seen[64] = { false }, in_section = false, regex_seen = false, post_seen = false;
        char want_re[512], want_post[512];
        man_form(re, want_re, sizeof(want_re));
        man_form(post_re, want_post, sizeof(want_post));
        char line[1024];
        while (fgets(line, sizeof(line), f)) {
                if (strstr(line, want_re))
                        regex_seen = true;
                if (strstr(line, want_post))
                        post_seen = true;
                if (line[0] == '#') {
                        in_section = strcmp(line, "# ANNOTATIONS\n") == 0;
                        continue;
                }
                size_t l = strlen(line);
                if (!in_section || line[0] != '*' || l < 4 || strcmp(line + l - 2, "*\n") != 0)
                        continue;
                line[l - 2] = '\0';
                const struct tsync_annotation_def *a = tsync_annotation_find(line + 1);
                tap_ok(a != NULL, "man page: %s is a row of the table", line + 1);
                if (a)
                        seen[a - tsync_annotation_table] = true;
        }
        (void)fclose(f);
        for (size_t i = 0; i < tsync_annotation_count && i < ARRAY_SIZE(seen); i++)
                tap_ok(seen[i], "man page: ANNOTATIONS lists %s", tsync_annotation_table[i].name);
        tap_ok(regex_seen, "man page: shows the hooks.d regex %s", want_re);
        tap_ok(post_seen, "man page: shows the poststop file's regex %s", want_post);
}

/* tests/integration/test_frontends.sh runs every user's row through every
 * front end (honoured and proven in the container, or refused with one
 * line): each row appears there as "$A.NAME=" ($A our prefix) or, for
 * another's name, "NAME=". A new row fails here until it has its tests. */
static void test_annotations_front_end_matrix_runs_every_users_row(void)
{
        char path[4200];
        (void)snprintf(path, sizeof(path), "%s/tests/integration/test_frontends.sh", top());
        _cleanup_free_ char *text = NULL;
        size_t len = 0;
        struct tsync_err err = { 0 };
        int r = tsync_read_file_at(AT_FDCWD, path, path, TSYNC_READ_REGULAR, 1u << 20, &text, &len, NULL, &err);
        if (!tap_ok(r == 0, "%s", r == 0 ? "test_frontends.sh read" : err.msg))
                return;
        for (size_t i = 0; i < tsync_annotation_count; i++) {
                const struct tsync_annotation_def *a = &tsync_annotation_table[i];
                if (a->setter != TSYNC_ANNOTATION_BY_USER)
                        continue;
                char want[160];
                if (under_prefix(a->name))
                        (void)snprintf(want, sizeof(want), "$A.%s=", a->name + strlen(TSYNC_ANNOTATION_PREFIX));
                else
                        (void)snprintf(want, sizeof(want), "%s=", a->name);
                tap_ok(strstr(text, want) != NULL, "test_frontends.sh runs %s (as %s)", a->name, want);
        }
}

static struct tsync_json *config_with(const char *annotations)
{
        char buf[1024];
        (void)snprintf(
                buf, sizeof(buf),
                "{\"process\": {\"args\": [\"sh\"], \"noNewPrivileges\": true}, \"root\": {\"path\": \"rootfs\"}, "
                "\"annotations\": %s}",
                annotations);
        return unit_parse(buf);
}

static void test_annotations_each_front_end_honours_or_refuses(void)
{
        enum { P = TSYNC_FRONTEND_PRECREATE, R = TSYNC_FRONTEND_RUNTIME, I = TSYNC_FRONTEND_INJECT };
        static const struct {
                const char *annotations;
                int fe;
                bool asks;
                const char *refusal; /* NULL: accepted */
        } rows[] = {
                { "{}", R, false, NULL },
                { "{\"org.example\": \"x\"}", R, false, NULL },
                /* issue 24: exec once alone was passed to runc unread. */
                { "{\"io.oci-seccomp-tsync.exec\": \"once\"}", R, true, NULL },
                { "{\"io.oci-seccomp-tsync.exec\": \"once\"}", P, true, NULL },
                { "{\"io.oci-seccomp-tsync.exec\": \"once\"}", I, false, "not read by inject" },
                { "{\"io.oci-seccomp-tsync.layers\": \"a\"}", R, true, NULL },
                { "{\"io.oci-seccomp-tsync.layers\": \"a\"}", I, false, "--profile FILE" },
                { "{\"io.oci-seccomp-tsync.mode\": \"replace\"}", R, true, NULL },
                { "{\"io.oci-seccomp-tsync.mode\": \"replace\"}", I, false, "--replace" },
                { "{\"io.oci-seccomp-tsync.record\": \"of:/p\"}", P, true, NULL },
                /* Written at the wrapper's delete (hook/runtime/delete.c). */
                { "{\"io.oci-seccomp-tsync.record\": \"of:/p\"}", R, true, NULL },
                { "{\"io.oci-seccomp-tsync.record\": \"of:/p\"}", I, false, "--record OUT" },
                /* Ours: the rewrite's undo judges them. */
                { "{\"io.oci-seccomp-tsync.plan\": \"{}\"}", R, true, NULL },
                { "{\"io.oci-seccomp-tsync.running\": \"x\"}", I, true, NULL },
                { "{\"run.oci.seccomp_fail_unknown_syscall\": \"1\"}", R, false, NULL },
                { "{\"run.oci.seccomp_fail_unknown_syscall\": \"1\"}", I, false, NULL },
                /* A typo is refused by every front end, whatever else is there. */
                { "{\"io.oci-seccomp-tsync.layer\": \"a\"}", R, false,
                  "annotations.io.oci-seccomp-tsync.layer: not an annotation of oci-seccomp-tsync (the user's are " },
                { "{\"io.oci-seccomp-tsync.layers\": \"a\", \"io.oci-seccomp-tsync.Mode\": \"x\"}", P, false,
                  "io.oci-seccomp-tsync.Mode: not an annotation" },
                { "{\"io.oci-seccomp-tsync.\": \"\"}", I, false, "not an annotation" },
                { "{\"io.oci-seccomp-tsyncXlayers\": \"a\"}", R, false, NULL },
                { "\"not an object\"", R, false, NULL },
        };
        for (size_t i = 0; i < ARRAY_SIZE(rows); i++) {
                _cleanup_json_ struct tsync_json *c = config_with(rows[i].annotations);
                struct tsync_err err = { 0 };
                bool asks = !rows[i].asks;
                int r = tsync_annotations_check(c, (enum tsync_frontend)rows[i].fe, &asks, &err);
                const char *fe = tsync_frontend_name((enum tsync_frontend)rows[i].fe);
                if (rows[i].refusal)
                        tap_ok(r == -EINVAL && strstr(err.msg, rows[i].refusal), "%s %s: refused (%s)", fe,
                               rows[i].annotations, err.msg);
                else
                        tap_ok(r == 0 && asks == rows[i].asks, "%s %s: accepted, %s", fe, rows[i].annotations,
                               rows[i].asks ? "asks for us" : "asks for nothing");
        }
}

/* A misspelt name is told the user's names, the table's in its order (so a
 * new row needs no edit here). */
static void test_annotations_a_misspelt_name_is_told_the_users_names(void)
{
        char want[512] = "(the user's are ";
        size_t n = strlen(want), first = n;
        for (size_t i = 0; i < tsync_annotation_count && n < sizeof(want); i++) {
                const struct tsync_annotation_def *a = &tsync_annotation_table[i];
                if (a->setter == TSYNC_ANNOTATION_BY_USER && under_prefix(a->name))
                        n += (size_t)snprintf(want + n, sizeof(want) - n, "%s%s", n > first ? ", " : "",
                                              a->name + strlen(TSYNC_ANNOTATION_PREFIX));
        }
        if (n < sizeof(want))
                (void)snprintf(want + n, sizeof(want) - n, ")");
        _cleanup_json_ struct tsync_json *c = config_with("{\"io.oci-seccomp-tsync.layer\": \"a\"}");
        struct tsync_err err = { 0 };
        int r = tsync_annotations_check(c, TSYNC_FRONTEND_RUNTIME, NULL, &err);
        tap_ok(r == -EINVAL && strstr(err.msg, want), "a misspelt name is told %s (%s)", want, err.msg);
}

/* The request parser refuses as the check does, and reads exec once alone. */
static void test_annotations_request_reads_exec_once_alone(void)
{
        _cleanup_json_ struct tsync_json *c = config_with("{\"io.oci-seccomp-tsync.exec\": \"once:EACCES\"}");
        struct tsync_err err = { 0 };
        struct tsync_request req;
        int r = tsync_request_from_annotations(c, TSYNC_FRONTEND_RUNTIME, &req, &err);
        tap_ok(r == 0 && req.init.exec_once == EACCES && req.n_layers == 0, "runtime: exec=once:EACCES alone read");
        if (r == 0)
                tsync_request_clear(&req);
        _cleanup_json_ struct tsync_json *rec = config_with("{\"io.oci-seccomp-tsync.record\": \"of:/p\"}");
        r = tsync_request_from_annotations(rec, TSYNC_FRONTEND_RUNTIME, &req, &err);
        tap_ok(r == 0 && req.record.output && strcmp(req.record.output, "/p") == 0,
               "runtime: a recording read by the parser too");
        if (r == 0)
                tsync_request_clear(&req);
        _cleanup_json_ struct tsync_json *typo = config_with("{\"io.oci-seccomp-tsync.exe\": \"once\"}");
        r = tsync_request_from_annotations(typo, TSYNC_FRONTEND_PRECREATE, &req, &err);
        tap_ok(r == -EINVAL && strstr(err.msg, "io.oci-seccomp-tsync.exe: not an annotation"),
               "precreate: a misspelt annotation refused");
}

/* The pause container is told apart by the engine's own mark and value alone. */
static void test_annotations_sandbox_is_the_running_engines_mark(void)
{
        static const struct {
                const char *annotations, *runner, *id;
                const char *engine; /* NULL: not a sandbox */
        } rows[] = {
                { "{\"io.kubernetes.cri.container-type\": \"sandbox\", \"io.kubernetes.cri.sandbox-id\": \"p1\", "
                  "\"io.oci-seccomp-tsync.layers\": \"x\"}",
                  "containerd-shim", "p1", "containerd" },
                { "{\"io.kubernetes.cri-o.ContainerType\": \"sandbox\", \"io.kubernetes.cri-o.SandboxID\": \"p1\"}",
                  "conmon", "p1", "CRI-O" },
                /* Under CRI-O, containerd's mark is a pod's annotation like any other (and the reverse). */
                { "{\"io.kubernetes.cri.container-type\": \"sandbox\", \"io.kubernetes.cri.sandbox-id\": \"p1\"}",
                  "conmon", "p1", NULL },
                { "{\"io.kubernetes.cri-o.ContainerType\": \"sandbox\", \"io.kubernetes.cri-o.SandboxID\": \"p1\"}",
                  "containerd-shim", "p1", NULL },
                /* Not run by an engine at all (runc's caller, a shell, a test). */
                { "{\"io.kubernetes.cri.container-type\": \"sandbox\", \"io.kubernetes.cri.sandbox-id\": \"p1\"}",
                  "bash", "p1", NULL },
                { "{\"io.kubernetes.cri.container-type\": \"sandbox\", \"io.kubernetes.cri.sandbox-id\": \"p1\"}", "",
                  "p1", NULL },
                /* The engine's other fact disagrees: the sandbox is another container. */
                { "{\"io.kubernetes.cri.container-type\": \"sandbox\", \"io.kubernetes.cri.sandbox-id\": \"p1\"}",
                  "containerd-shim", "c2", NULL },
                { "{\"io.kubernetes.cri.container-type\": \"sandbox\"}", "containerd-shim", "p1", NULL },
                { "{\"io.kubernetes.cri.container-type\": \"container\", \"io.kubernetes.cri.sandbox-id\": \"p1\"}",
                  "containerd-shim", "p1", NULL },
                { "{\"io.kubernetes.cri.container-type\": \"sandboxes\", \"io.kubernetes.cri.sandbox-id\": \"p1\"}",
                  "containerd-shim", "p1", NULL },
                { "{\"io.kubernetes.cri.container-type\": [\"sandbox\"], \"io.kubernetes.cri.sandbox-id\": \"p1\"}",
                  "containerd-shim", "p1", NULL },
                { "{\"io.kubernetes.cri.sandbox-id\": \"sandbox\"}", "containerd-shim", "sandbox", NULL },
        };
        for (size_t i = 0; i < ARRAY_SIZE(rows); i++) {
                _cleanup_json_ struct tsync_json *c = config_with(rows[i].annotations);
                const struct tsync_sandbox_mark *m = tsync_annotations_sandbox(c, rows[i].runner, rows[i].id);
                if (rows[i].engine)
                        tap_ok(m && strcmp(m->engine, rows[i].engine) == 0, "%s run by %s, id %s: %s's sandbox",
                               rows[i].annotations, rows[i].runner, rows[i].id, rows[i].engine);
                else
                        tap_ok(!m, "%s run by '%s', id %s: not a sandbox", rows[i].annotations, rows[i].runner,
                               rows[i].id);
        }
}

int main(void)
{
        char re[256] = "", post_re[256] = "";
        test_annotations_table_is_consistent();
        test_annotations_hooks_d_regexes_are_the_user_rows(re, sizeof(re), post_re, sizeof(post_re));
        test_annotations_man_page_lists_the_table(re, post_re);
        test_annotations_front_end_matrix_runs_every_users_row();
        test_annotations_each_front_end_honours_or_refuses();
        test_annotations_a_misspelt_name_is_told_the_users_names();
        test_annotations_request_reads_exec_once_alone();
        test_annotations_sandbox_is_the_running_engines_mark();
        return tap_done();
}
