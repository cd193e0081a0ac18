/* What several unit tests share beyond TAP: JSON from a literal, a
 * temporary directory removed at exit, the rewrite step alone, the config the
 * rewrite tests start from. */
#pragma once

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "facts/annotations.h"
#include "plan/plan.h"
#include "plan/rewrite.h"
#include "shared/cleanup.h"
#include "tap.h"
#include "util/json.h"
#include "util/json_build.h"

/* A runc-like config the rewrite tests start from: noNewPrivileges false (the
 * rewrite lends the init CAP_SYS_ADMIN), a user of its own, capabilities in
 * every set, annotations and a number beyond int64 the rewrite must keep. */
static const char *const unit_base_config =
        "{\"ociVersion\": \"1.0.2\","
        " \"process\": {\"args\": [\"sh\", \"-c\", \"echo hi\"], \"user\": {\"uid\": 1000, \"gid\": 1000},"
        "   \"noNewPrivileges\": false,"
        "   \"capabilities\": {\"bounding\": [\"CAP_CHOWN\", \"CAP_KILL\"], \"effective\": [\"CAP_KILL\"],"
        "                      \"permitted\": [\"CAP_KILL\"], \"inheritable\": [], \"ambient\": [\"CAP_KILL\"]}},"
        " \"root\": {\"path\": \"rootfs\", \"readonly\": true},"
        " \"mounts\": [{\"destination\": \"/proc\", \"type\": \"proc\", \"source\": \"proc\"}],"
        " \"annotations\": {\"keep\": \"me\"},"
        " \"linux\": {\"seccomp\": {\"defaultAction\": \"SCMP_ACT_ERRNO\", \"syscalls\": []},"
        "            \"namespaces\": [{\"type\": \"pid\"}], \"big\": 18446744073709551615}}";

/* The document, or NULL with a TAP diagnostic. */
static inline struct tsync_json *unit_parse(const char *s)
{
        struct tsync_json *doc = NULL;
        struct tsync_err err = { 0 };
        if (tsync_json_parse(s, strlen(s), NULL, &doc, &err) < 0)
                tap_diag("parse: %s", err.msg);
        return doc;
}

/* v as compact JSON text (the caller frees it), or NULL. */
static inline char *unit_text(const struct tsync_json *v)
{
        char *out = NULL;
        size_t len;
        struct tsync_err err = { 0 };
        if (tsync_json_write(v, false, &out, &len, &err) < 0)
                return NULL;
        return out;
}

/* path holding text alone (made 0644, or truncated): 0, or -1 with errno. */
static inline int unit_write_file(const char *path, const char *text)
{
        int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
        if (fd < 0)
                return -1;
        size_t len = strlen(text);
        ssize_t n = write(fd, text, len);
        int closed = close(fd);
        return n == (ssize_t)len && closed == 0 ? 0 : -1;
}

/* The config's plan annotation set to text, as inject writes it: 0, or
 * -EINVAL when there is no text or c has no annotations object. */
static inline int unit_annotate_plan(struct tsync_json *c, const char *text)
{
        struct tsync_json *annotations = c && text ? tsync_json_get_object(c, "annotations") : NULL;
        return annotations ? tsync_json_set(annotations, TSYNC_ANNOTATION_PLAN, tsync_json_new_string(text)) : -EINVAL;
}

/* A copy: the template usually lives in main's frame, gone when atexit runs. */
static char unit_tmp[4096];

static inline void unit_tmp_remove(void)
{
        char cmd[4200];
        (void)snprintf(cmd, sizeof(cmd), "rm -rf '%s'", unit_tmp);
        (void)system(cmd);
}

/* A file name in the unit_tmpdir holding text: its path (the caller frees
 * it), or NULL with a TAP diagnostic. */
static inline char *unit_tmp_file(const char *name, const char *text)
{
        char *path = NULL;
        if (asprintf(&path, "%s/%s", unit_tmp, name) < 0)
                return NULL;
        if (unit_write_file(path, text) < 0) {
                tap_diag("cannot write %s", path);
                free(path);
                return NULL;
        }
        return path;
}

/* mkdtemp(tmpl), removed with everything in it at exit. 0, or -1 after a failed TAP line. */
static inline int unit_tmpdir(char *tmpl)
{
        if (!mkdtemp(tmpl)) {
                tap_ok(0, "mkdtemp: %s", strerror(errno));
                return -1;
        }
        (void)snprintf(unit_tmp, sizeof(unit_tmp), "%s", tmpl);
        atexit(unit_tmp_remove);
        return 0;
}

/* The main of a test file whose tests share one temporary directory:
 * mkdtemp(tmpl), removed at exit (unit_tmp names it), then each test in its
 * order. The exit status of the TAP run. */
static inline int unit_main_in_tmpdir(char *tmpl, void (*const tests[])(void), size_t n)
{
        if (unit_tmpdir(tmpl) == 0)
                for (size_t i = 0; i < n; i++)
                        tests[i]();
        return tap_done();
}

/* The rewrite step alone, for tests of what it writes (undo, the plan,
 * tsync_rewrite_apply): the layers need not exist, nothing is compiled or
 * judged. What the front ends run, which compiles and judges first, is
 * tsync_plan_prepare and tsync_plan_apply (test_prepare.c, fuzz_config). */
static inline int unit_rewrite(struct tsync_json *config, const struct tsync_request *req, const char *state_dir,
                               const struct tsync_rewrite_opts *o, struct tsync_err *err)
{
        char *running = NULL;
        struct tsync_plan *plan = NULL;
        int r = tsync_rewrite_undo(config, o->from_engine, &running, err);
        if (r == 0)
                r = tsync_plan_new(config, req, state_dir, &plan, err);
        if (r == 0)
                r = tsync_rewrite_apply(config, plan, o, running, err);
        tsync_plan_free(plan);
        free(running);
        return r;
}

/* base after `inject` of one layer, as text, pretty or compact; NULL after a
 * TAP diagnostic. */
static inline char *unit_injected_text(const char *base, bool pretty)
{
        struct tsync_err err = { 0 };
        struct tsync_json *c = unit_parse(base);
        struct tsync_request req = { .mode = TSYNC_MODE_LAYER, .n_layers = 1, .layers = { "/etc/p/a.json" } };
        struct tsync_rewrite_opts o = { .init_path = "/usr/libexec/oci-seccomp-tsync/seccomp-tsync-init",
                                        .hook_path = "/usr/bin/oci-seccomp-tsync" };
        char *out = NULL;
        size_t len;
        if (!c || unit_rewrite(c, &req, "/bundle/oci-seccomp-tsync", &o, &err) < 0 ||
            tsync_json_write(c, pretty, &out, &len, &err) < 0)
                tap_diag("inject: %s", err.msg);
        tsync_json_free(c);
        return out;
}

/* Every .json file under dir, recursively, given to each; *n counts them. */
static inline void unit_each_json_under(const char *dir, void (*each)(const char *path, void *ctx), void *ctx,
                                        size_t *n)
{
        DIR *d = opendir(dir);
        if (!d)
                return;
        struct dirent *e;
        while ((e = readdir(d))) {
                if (e->d_name[0] == '.')
                        continue;
                char path[4096];
                int k = snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
                if (k < 0 || (size_t)k >= sizeof(path))
                        continue;
                size_t len = strlen(e->d_name);
                if (e->d_type == DT_DIR)
                        unit_each_json_under(path, each, ctx, n);
                else if (len >= 5 && strcmp(e->d_name + len - 5, ".json") == 0) {
                        each(path, ctx);
                        (*n)++;
                }
        }
        closedir(d);
}

/* Every JSON file of the tree (under $TSYNC_TOP, else the current
 * directory): configs, schemas, fixtures, test profiles, fuzz seeds,
 * packaging. Their count. */
static inline size_t unit_each_tree_json(void (*each)(const char *path, void *ctx), void *ctx)
{
        const char *top = getenv("TSYNC_TOP") ? getenv("TSYNC_TOP") : ".";
        static const char *const dirs[] = {
                "configs",           "schema",   "tests/unit/fixtures", "tests/integration/profiles",
                "tests/fuzz/corpus", "packaging"
        };
        size_t n = 0;
        for (size_t i = 0; i < ARRAY_SIZE(dirs); i++) {
                char path[4096];
                (void)snprintf(path, sizeof(path), "%s/%s", top, dirs[i]);
                unit_each_json_under(path, each, ctx, &n);
        }
        return n;
}
