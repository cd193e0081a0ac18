/* node.conf (hook/node/node_conf.c): each rule accepted and refused, every
 * refusal's one line checked whole (the file, the line, the fix); the file's
 * owner, mode and kind; a missing file; the exclusion matcher. The files are
 * made in a temporary directory and given away with chown: this runs as root. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "node/node_conf.h"
#include "shared/cleanup.h"
#include "tap.h"
#include "unit.h"

/* unit_tmp/name holding len bytes of text, owned by uid with mode: its path
 * (the caller frees it), or NULL after a TAP diagnostic. */
static char *conf_bytes(const char *name, const char *text, size_t len, uid_t uid, mode_t mode)
{
        char *path = NULL;
        if (asprintf(&path, "%s/%s", unit_tmp, name) < 0)
                return NULL;
        (void)unlink(path);
        int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
        bool ok = fd >= 0 && write(fd, text, len) == (ssize_t)len;
        if (fd >= 0 && close(fd) < 0)
                ok = false;
        if (!ok || chown(path, uid, 0) < 0 || chmod(path, mode) < 0) {
                tap_diag("cannot write %s: %s", path, strerror(errno));
                free(path);
                return NULL;
        }
        return path;
}

static char *conf(const char *text)
{
        return conf_bytes("node.conf", text, strlen(text), 0, 0644);
}

static bool cleared(const struct tsync_node_policy *p)
{
        return !p->present && p->n_layers == 0 && p->layers[0] == NULL && p->nnp == TSYNC_NODE_NNP_REFUSE &&
               !p->nnp_given && p->excludes == NULL && p->n_excludes == 0;
}

/* text is refused with code and exactly "<path>: <want>", and the policy
 * handed in (holding garbage) comes back cleared. */
static void refused(const char *test, const char *text, int code, const char *want)
{
        _cleanup_free_ char *path = conf(text);
        _cleanup_free_ char *full = NULL;
        struct tsync_node_policy p;
        struct tsync_err err = { 0 };
        memset(&p, 0xa5, sizeof(p));
        int r = path ? tsync_node_policy_read(path, &p, &err) : 0;
        if (!path || asprintf(&full, "%s: %s", path, want) < 0)
                full = NULL;
        if (!tap_ok(r == -code && full && strcmp(err.msg, full) == 0 && cleared(&p), "test_node_conf_%s", test))
                tap_diag("r=%d, got:  %s\n# wanted: %s", r, err.msg, full ? full : "?");
        if (r == 0)
                tsync_node_policy_clear(&p);
}

/* text is read: 0, and p holds it; or -1 after a failed TAP line. */
static int accepted(const char *test, const char *text, struct tsync_node_policy *p)
{
        _cleanup_free_ char *path = conf(text);
        struct tsync_err err = { 0 };
        int r = path ? tsync_node_policy_read(path, p, &err) : -EIO;
        if (r < 0) {
                tap_ok(0, "test_node_conf_%s: %s", test, err.msg);
                return -1;
        }
        return 0;
}

static void test_node_conf_example(void)
{
        static const char text[] =
                "# /etc/oci-seccomp-tsync/node.conf\n"
                "layers = deny-io-uring, deny-bpf        # names, comma separated, spaces around commas allowed\n"
                "no-new-privs = set                      # or: refuse (the default when absent)\n"
                "exclude = db1: runs io_uring for its storage engine (ticket 42)\n"
                "exclude = docker/web-7: vendor image, reviewed 2026-11\n";
        struct tsync_node_policy p;
        if (accepted("example_is_read", text, &p) < 0)
                return;
        tap_ok(p.present && p.n_layers == 2 && strcmp(p.layers[0], "deny-io-uring") == 0 &&
                       strcmp(p.layers[1], "deny-bpf") == 0,
               "test_node_conf_layers_are_split_at_commas_and_the_comment_dropped");
        tap_ok(p.nnp == TSYNC_NODE_NNP_SET && p.nnp_given, "test_node_conf_no_new_privs_set_is_read");
        tap_ok(p.n_excludes == 2 && p.excludes[0].engine == NULL && strcmp(p.excludes[0].target, "db1") == 0 &&
                       strcmp(p.excludes[0].reason, "runs io_uring for its storage engine (ticket 42)") == 0 &&
                       p.excludes[0].line == 4,
               "test_node_conf_unqualified_exclude_keeps_its_target_reason_and_line");
        tap_ok(p.n_excludes == 2 && p.excludes[1].engine && strcmp(p.excludes[1].engine, "docker") == 0 &&
                       strcmp(p.excludes[1].target, "web-7") == 0 &&
                       strcmp(p.excludes[1].reason, "vendor image, reviewed 2026-11") == 0 && p.excludes[1].line == 5,
               "test_node_conf_qualified_exclude_names_its_engine");
        tsync_node_policy_clear(&p);
        tap_ok(cleared(&p), "test_node_conf_clear_clears");
        tsync_node_policy_clear(&p);
        tsync_node_policy_clear(NULL);
}

static void test_node_conf_accepts(void)
{
        struct tsync_node_policy p;
        if (accepted("empty_file", "", &p) == 0)
                tap_ok(p.present && p.n_layers == 0 && p.n_excludes == 0 && !p.nnp_given &&
                               p.nnp == TSYNC_NODE_NNP_REFUSE,
                       "test_node_conf_empty_file_is_a_policy_of_nothing");
        tsync_node_policy_clear(&p);

        if (accepted("comments", "# a comment\n\n   \t\n  # indented\r\nno-new-privs = refuse\r\n", &p) == 0)
                tap_ok(p.present && p.nnp_given && p.nnp == TSYNC_NODE_NNP_REFUSE && p.n_layers == 0,
                       "test_node_conf_comments_blank_lines_and_crlf_are_skipped");
        tsync_node_policy_clear(&p);

        if (accepted("spacing", "layers=a,b ,\tc  ,d-e.f_g\nexclude=x:y", &p) == 0)
                tap_ok(p.n_layers == 4 && strcmp(p.layers[1], "b") == 0 && strcmp(p.layers[2], "c") == 0 &&
                               strcmp(p.layers[3], "d-e.f_g") == 0 && p.n_excludes == 1 &&
                               strcmp(p.excludes[0].reason, "y") == 0,
                       "test_node_conf_spaces_around_equals_and_commas_are_optional");
        tsync_node_policy_clear(&p);

        if (accepted("reason_as_written",
                     "exclude =  db1 :  ticket #42: io_uring, \"fast\" path\t \n"
                     "exclude = kubernetes/prod/db: a pod\n"
                     "exclude = kubernetes/prod/web/nginx: a container\n"
                     "exclude = containerd/0123456789ab: a short id\n",
                     &p) == 0) {
                tap_ok(p.n_excludes == 4 && strcmp(p.excludes[0].target, "db1") == 0 &&
                               strcmp(p.excludes[0].reason, "ticket #42: io_uring, \"fast\" path") == 0,
                       "test_node_conf_a_reason_keeps_hashes_and_colons_trimmed: '%s'",
                       p.n_excludes ? p.excludes[0].reason : "");
                tap_ok(p.n_excludes == 4 && strcmp(p.excludes[1].engine, "kubernetes") == 0 &&
                               strcmp(p.excludes[1].target, "prod/db") == 0 &&
                               strcmp(p.excludes[2].target, "prod/web/nginx") == 0 &&
                               strcmp(p.excludes[3].engine, "containerd") == 0 && p.excludes[3].line == 4,
                       "test_node_conf_kubernetes_pods_and_containers_are_read");
        }
        tsync_node_policy_clear(&p);

        if (accepted("same_name_other_engines", "exclude = docker/web: a\nexclude = podman/web: b\nexclude = web: c\n",
                     &p) == 0)
                tap_ok(p.n_excludes == 3 && strcmp(p.excludes[1].engine, "podman") == 0 &&
                               strcmp(p.excludes[1].target, "web") == 0 && p.excludes[2].engine == NULL,
                       "test_node_conf_one_name_under_several_engines_is_accepted");
        tsync_node_policy_clear(&p);

        /* The limits themselves are accepted. */
        char text[TSYNC_NODE_MAX_EXCLUDES * 24 + 512];
        size_t at = (size_t)snprintf(text, sizeof(text), "layers = ");
        for (int i = 0; i < TSYNC_MAX_LAYERS; i++)
                at += (size_t)snprintf(text + at, sizeof(text) - at, "%sl%d", i ? "," : "", i);
        at += (size_t)snprintf(text + at, sizeof(text) - at, "\n");
        for (int i = 0; i < TSYNC_NODE_MAX_EXCLUDES; i++)
                at += (size_t)snprintf(text + at, sizeof(text) - at, "exclude = c%d: r\n", i);
        if (accepted("limits", text, &p) == 0)
                tap_ok(p.n_layers == TSYNC_MAX_LAYERS && strcmp(p.layers[TSYNC_MAX_LAYERS - 1], "l15") == 0 &&
                               p.n_excludes == TSYNC_NODE_MAX_EXCLUDES &&
                               strcmp(p.excludes[TSYNC_NODE_MAX_EXCLUDES - 1].target, "c255") == 0 &&
                               p.excludes[TSYNC_NODE_MAX_EXCLUDES - 1].line == TSYNC_NODE_MAX_EXCLUDES + 1,
                       "test_node_conf_16_layers_and_256_excludes_are_accepted");
        tsync_node_policy_clear(&p);

        char reason[TSYNC_NODE_REASON_MAX + 1];
        memset(reason, 'r', sizeof(reason) - 1);
        reason[sizeof(reason) - 1] = '\0';
        (void)snprintf(text, sizeof(text), "exclude = db1: %s\n", reason);
        if (accepted("reason_max", text, &p) == 0)
                tap_ok(p.n_excludes == 1 && strlen(p.excludes[0].reason) == TSYNC_NODE_REASON_MAX,
                       "test_node_conf_a_reason_of_200_bytes_is_accepted");
        tsync_node_policy_clear(&p);
}

static void test_node_conf_refuses_keys(void)
{
        refused("misspelt_layers_is_refused_with_a_hint", "layer = a\n", EINVAL,
                "line 1: 'layer' is not a setting (layers, no-new-privs, exclude): did you mean 'layers'?");
        refused("underscores_are_refused_with_a_hint", "\n# x\nno_new_privs = set\n", EINVAL,
                "line 3: 'no_new_privs' is not a setting (layers, no-new-privs, exclude): did you mean "
                "'no-new-privs'?");
        refused("excludes_is_refused_with_a_hint", "excludes = db1: x\n", EINVAL,
                "line 1: 'excludes' is not a setting (layers, no-new-privs, exclude): did you mean 'exclude'?");
        refused("keys_are_case_sensitive", "Layers = a\n", EINVAL,
                "line 1: 'Layers' is not a setting (layers, no-new-privs, exclude): did you mean 'layers'?");
        refused("a_far_key_gets_no_hint", "runtime = runc\n", EINVAL,
                "line 1: 'runtime' is not a setting (layers, no-new-privs, exclude)");
        refused("a_line_without_equals_is_refused", "layers\n", EINVAL,
                "line 1: expected 'key = value' (layers, no-new-privs, exclude)");
        refused("a_line_without_key_is_refused", "= a\n", EINVAL,
                "line 1: expected 'key = value' (layers, no-new-privs, exclude)");
        refused("a_control_byte_is_shown_escaped", "la\x1byer = a\n", EINVAL,
                "line 1: 'la\\x1byer' is not a setting (layers, no-new-privs, exclude): did you mean 'layers'?");
        /* A long word is cut in the message, which stays one short line. */
        char long_key[128], long_want[256];
        memset(long_key, 'k', 100);
        (void)snprintf(long_key + 100, sizeof(long_key) - 100, " = v\n");
        (void)snprintf(long_want, sizeof(long_want),
                       "line 1: '%.80s...' is not a setting (layers, no-new-privs, exclude)", long_key);
        refused("a_long_key_is_cut_in_the_message", long_key, EINVAL, long_want);
        /* The first bad line refuses the file: what was read before it is not kept. */
        refused("a_bad_line_after_good_ones_refuses_all", "layers = a\nno-new-privs = set\nexclude = b: c\nx = y\n",
                EINVAL, "line 4: 'x' is not a setting (layers, no-new-privs, exclude)");
        static const char nul[] = "layers = a\nexclude = b\0: c\n";
        _cleanup_free_ char *path = conf_bytes("nul.conf", nul, sizeof(nul) - 1, 0, 0644);
        struct tsync_node_policy p;
        struct tsync_err err = { 0 };
        int r = path ? tsync_node_policy_read(path, &p, &err) : 0;
        char want[4200];
        (void)snprintf(want, sizeof(want), "%s: line 2: a NUL byte: the node's policy is a text file",
                       path ? path : "?");
        tap_ok(r == -EINVAL && strcmp(err.msg, want) == 0 && cleared(&p), "test_node_conf_a_nul_byte_is_refused: %s",
               err.msg);
}

static void test_node_conf_refuses_layers(void)
{
        refused("empty_layers_is_refused", "layers =\n", EINVAL,
                "line 1: layers is empty: name the profiles (layers = NAME, NAME) or remove the line");
        refused("layers_of_a_comment_is_empty", "layers =   # later\n", EINVAL,
                "line 1: layers is empty: name the profiles (layers = NAME, NAME) or remove the line");
        refused("layers_twice_names_the_first", "layers = a\n\n# more\nlayers = b\n", EINVAL,
                "line 4: layers is given twice (first on line 1): keep one layers line");
        refused("a_double_comma_is_refused", "layers = a,,b\n", EINVAL,
                "line 1: layers: an empty name: separate the names with one comma each");
        refused("a_trailing_comma_is_refused", "layers = a, b,\n", EINVAL,
                "line 1: layers: an empty name: separate the names with one comma each");
        refused("a_path_is_not_a_name", "layers = a, /etc/x.json\n", EINVAL,
                "line 1: layers: '/etc/x.json' is not a profile name: name a profile of the profile directories "
                "(letters, digits, '_', '-', '.'; not starting with '.'; no '/')");
        refused("a_slash_is_not_in_a_name", "layers = sub/x\n", EINVAL,
                "line 1: layers: 'sub/x' is not a profile name: name a profile of the profile directories "
                "(letters, digits, '_', '-', '.'; not starting with '.'; no '/')");
        refused("a_leading_dot_is_refused", "layers = .hidden\n", EINVAL,
                "line 1: layers: '.hidden' is not a profile name: name a profile of the profile directories "
                "(letters, digits, '_', '-', '.'; not starting with '.'; no '/')");
        refused("a_space_inside_a_name_is_refused", "layers = deny io\n", EINVAL,
                "line 1: layers: 'deny io' is not a profile name: name a profile of the profile directories "
                "(letters, digits, '_', '-', '.'; not starting with '.'; no '/')");
        refused("a_name_twice_is_refused", "layers = a, b, a\n", EINVAL,
                "line 1: layers: 'a' is named twice: name each profile once");
        char text[512];
        size_t at = (size_t)snprintf(text, sizeof(text), "layers = ");
        for (int i = 0; i <= TSYNC_MAX_LAYERS; i++)
                at += (size_t)snprintf(text + at, sizeof(text) - at, "%sl%d", i ? "," : "", i);
        refused("17_layers_are_refused", text, E2BIG, "line 1: layers: more than 16 names: at most 16 layers");
}

static void test_node_conf_refuses_nnp(void)
{
        refused("no_new_privs_yes_is_refused", "no-new-privs = yes\n", EINVAL,
                "line 1: no-new-privs: 'yes' is neither set nor refuse: no-new-privs = set, or refuse");
        refused("no_new_privs_is_case_sensitive", "no-new-privs = Set\n", EINVAL,
                "line 1: no-new-privs: 'Set' is neither set nor refuse: no-new-privs = set, or refuse");
        refused("empty_no_new_privs_is_refused", "no-new-privs =\n", EINVAL,
                "line 1: no-new-privs is empty: no-new-privs = set, or refuse");
        refused("no_new_privs_twice_names_the_first", "no-new-privs = refuse\nno-new-privs = refuse\n", EINVAL,
                "line 2: no-new-privs is given twice (first on line 1): keep one no-new-privs line");
}

static void test_node_conf_refuses_excludes(void)
{
        refused("exclude_without_reason_is_refused", "exclude = db1\n", EINVAL,
                "line 1: exclude needs a reason: exclude = NAME: WHY");
        refused("exclude_with_an_empty_reason_is_refused", "layers = a\n\n\n\nexclude = db1:  \t\n", EINVAL,
                "line 5: exclude needs a reason: exclude = NAME: WHY");
        refused("exclude_without_target_is_refused", "exclude = : why\n", EINVAL,
                "line 1: exclude names no container: exclude = NAME: WHY");
        refused("exclude_empty_is_refused", "exclude =\n", EINVAL,
                "line 1: exclude needs a reason: exclude = NAME: WHY");
        refused("a_space_in_a_target_is_refused", "exclude = db 1: why\n", EINVAL,
                "line 1: exclude: 'db 1' is not a container's name or id (letters, digits, '_', '.', '-'; "
                "ENGINE/NAME; kubernetes/NAMESPACE/POD[/CONTAINER])");
        refused("a_star_in_a_target_is_refused", "exclude = web-*: why\n", EINVAL,
                "line 1: exclude: 'web-*' is not a container's name or id (letters, digits, '_', '.', '-'; "
                "ENGINE/NAME; kubernetes/NAMESPACE/POD[/CONTAINER])");
        refused("an_unknown_engine_is_refused", "exclude = lxc/db1: why\n", EINVAL,
                "line 1: exclude: 'lxc' in 'lxc/db1' is not an engine (runc, crun, containerd, docker, podman, "
                "kubernetes): ENGINE/NAME, or the name alone");
        refused("engines_are_case_sensitive", "exclude = Docker/db1: why\n", EINVAL,
                "line 1: exclude: 'Docker' in 'Docker/db1' is not an engine (runc, crun, containerd, docker, "
                "podman, kubernetes): ENGINE/NAME, or the name alone");
        refused("a_docker_name_has_no_slash", "exclude = docker/a/b: why\n", EINVAL,
                "line 1: exclude: 'docker/a/b' has a '/' too many: a docker container is docker/NAME");
        refused("kubernetes_needs_a_namespace", "exclude = kubernetes/db-0: why\n", EINVAL,
                "line 1: exclude: 'kubernetes/db-0' is not a pod or a container: kubernetes/NAMESPACE/POD or "
                "kubernetes/NAMESPACE/POD/CONTAINER");
        refused("kubernetes_has_at_most_three_parts", "exclude = kubernetes/a/b/c/d: why\n", EINVAL,
                "line 1: exclude: 'kubernetes/a/b/c/d' is not a pod or a container: kubernetes/NAMESPACE/POD or "
                "kubernetes/NAMESPACE/POD/CONTAINER");
        refused("an_engine_alone_is_refused", "exclude = docker/: why\n", EINVAL,
                "line 1: exclude: 'docker/' has an empty part: ENGINE/NAME, or the name alone");
        refused("a_leading_slash_is_refused", "exclude = /db1: why\n", EINVAL,
                "line 1: exclude: '/db1' has an empty part: ENGINE/NAME, or the name alone");
        refused("a_double_slash_is_refused", "exclude = kubernetes/ns//c: why\n", EINVAL,
                "line 1: exclude: 'kubernetes/ns//c' has an empty part: ENGINE/NAME, or the name alone");
        refused("the_same_target_twice_is_refused", "exclude = docker/web: a\nexclude = docker/web: b\n", EINVAL,
                "line 2: exclude: 'docker/web' is excluded already on line 1: keep one line");
        refused("a_control_byte_in_a_reason_is_refused", "exclude = db1: a\x1b[31mred\n", EINVAL,
                "line 1: exclude: the reason holds a control character: write it as text");

        char reason[TSYNC_NODE_REASON_MAX + 2];
        memset(reason, 'r', sizeof(reason) - 1);
        reason[sizeof(reason) - 1] = '\0';
        char text[TSYNC_NODE_MAX_EXCLUDES * 24 + 512];
        (void)snprintf(text, sizeof(text), "exclude = db1: %s\n", reason);
        refused("a_reason_of_201_bytes_is_refused", text, EINVAL,
                "line 1: exclude: the reason is 201 bytes, at most 200: shorten it");
        size_t at = 0;
        for (int i = 0; i <= TSYNC_NODE_MAX_EXCLUDES; i++)
                at += (size_t)snprintf(text + at, sizeof(text) - at, "exclude = c%d: r\n", i);
        refused("257_excludes_are_refused", text, E2BIG,
                "line 257: more than 256 exclude lines: exclude fewer containers, or by pod");
}

/* The file itself: where it is, what it is, whose it is. */
static void test_node_conf_file(void)
{
        struct tsync_node_policy p;
        struct tsync_err err = { 0 };
        char path[4200], want[8400];

        (void)snprintf(path, sizeof(path), "%s/absent.conf", unit_tmp);
        memset(&p, 0xa5, sizeof(p));
        int r = tsync_node_policy_read(path, &p, &err);
        tap_ok(r == 0 && cleared(&p), "test_node_conf_a_missing_file_is_no_policy: %d", r);
        (void)snprintf(path, sizeof(path), "%s/no-dir/node.conf", unit_tmp);
        r = tsync_node_policy_read(path, &p, &err);
        tap_ok(r == 0 && !p.present, "test_node_conf_a_missing_directory_is_no_policy: %d", r);

        static const struct {
                const char *name;
                uid_t uid;
                mode_t mode;
                bool ok;
        } owners[] = {
                { "root_0644_is_read", 0, 0644, true },
                { "root_0600_is_read", 0, 0600, true },
                { "root_0444_is_read", 0, 0444, true },
                { "root_0640_is_read", 0, 0640, true },
                { "root_0664_is_refused", 0, 0664, false },
                { "root_0646_is_refused", 0, 0646, false },
                { "root_0666_is_refused", 0, 0666, false },
                { "uid_1000_0644_is_refused", 1000, 0644, false },
                { "uid_65534_0600_is_refused", 65534, 0600, false },
        };
        for (size_t i = 0; i < ARRAY_SIZE(owners); i++) {
                _cleanup_free_ char *f = conf_bytes("owned.conf", "layers = a\n", 11, owners[i].uid, owners[i].mode);
                memset(&p, 0xa5, sizeof(p));
                r = f ? tsync_node_policy_read(f, &p, &err) : -EIO;
                if (owners[i].ok) {
                        tap_ok(r == 0 && p.present && p.n_layers == 1 && strcmp(p.layers[0], "a") == 0,
                               "test_node_conf_%s: %s", owners[i].name, r == 0 ? "" : err.msg);
                        tsync_node_policy_clear(&p);
                        continue;
                }
                (void)snprintf(want, sizeof(want),
                               "%s: owned by uid %u with mode %04o: it decides what every container on the node "
                               "gets, so it must belong to root and be writable by root alone (chown root, chmod "
                               "go-w)",
                               f ? f : "?", (unsigned)owners[i].uid, (unsigned)owners[i].mode);
                if (!tap_ok(r == -EPERM && strcmp(err.msg, want) == 0 && cleared(&p), "test_node_conf_%s",
                            owners[i].name))
                        tap_diag("got: %s", err.msg);
        }

        /* A symbolic link, even to a good file of root's, is refused: the link's
         * directory need not be as safe as the file's. */
        _cleanup_free_ char *good = conf_bytes("good.conf", "layers = a\n", 11, 0, 0644);
        (void)snprintf(path, sizeof(path), "%s/link.conf", unit_tmp);
        r = good && symlink(good, path) == 0 ? tsync_node_policy_read(path, &p, &err) : -EIO;
        (void)snprintf(want, sizeof(want),
                       "%s: a symbolic link: put the file itself there (owned by root, writable by root alone)", path);
        tap_ok(r == -ELOOP && strcmp(err.msg, want) == 0 && cleared(&p), "test_node_conf_a_symlink_is_refused: %s",
               err.msg);

        (void)snprintf(path, sizeof(path), "%s/dir.conf", unit_tmp);
        r = mkdir(path, 0755) == 0 ? tsync_node_policy_read(path, &p, &err) : -EIO;
        (void)snprintf(want, sizeof(want),
                       "%s: not a regular file: the node's policy is a file owned by root, writable by root alone",
                       path);
        tap_ok(r == -EISDIR && strcmp(err.msg, want) == 0, "test_node_conf_a_directory_is_refused: %s", err.msg);

        /* A FIFO without a writer would hang a plain open. */
        (void)snprintf(path, sizeof(path), "%s/fifo.conf", unit_tmp);
        r = mkfifo(path, 0644) == 0 ? tsync_node_policy_read(path, &p, &err) : -EIO;
        (void)snprintf(want, sizeof(want),
                       "%s: not a regular file: the node's policy is a file owned by root, writable by root alone",
                       path);
        tap_ok(r == -EINVAL && strcmp(err.msg, want) == 0, "test_node_conf_a_fifo_is_refused_without_hanging: %s",
               err.msg);

        /* 64 KiB exactly is read; a byte more is refused before it is read. */
        _cleanup_free_ char *big = malloc(TSYNC_NODE_CONF_MAX_BYTES + 1);
        if (!big)
                return;
        memset(big, '#', TSYNC_NODE_CONF_MAX_BYTES + 1);
        big[TSYNC_NODE_CONF_MAX_BYTES - 1] = '\n';
        _cleanup_free_ char *f = conf_bytes("big.conf", big, TSYNC_NODE_CONF_MAX_BYTES, 0, 0644);
        r = f ? tsync_node_policy_read(f, &p, &err) : -EIO;
        tap_ok(r == 0 && p.present, "test_node_conf_64_KiB_is_read: %s", r == 0 ? "" : err.msg);
        tsync_node_policy_clear(&p);
        free(f);
        f = conf_bytes("big.conf", big, TSYNC_NODE_CONF_MAX_BYTES + 1, 0, 0644);
        r = f ? tsync_node_policy_read(f, &p, &err) : -EIO;
        (void)snprintf(want, sizeof(want), "%s: 65537 bytes is more than the limit of 65536 bytes", f ? f : "?");
        tap_ok(r == -EFBIG && strcmp(err.msg, want) == 0 && cleared(&p),
               "test_node_conf_more_than_64_KiB_is_refused: %s", err.msg);
}

static void test_node_conf_excluded(void)
{
        static const char text[] = "exclude = db1: a\n"                          /* 0 */
                                   "exclude = docker/web-7: b\n"                 /* 1 */
                                   "exclude = 0123456789ab: c\n"                 /* 2 */
                                   "exclude = kubernetes/prod/db: d\n"           /* 3 */
                                   "exclude = kubernetes/prod/web/nginx: e\n"    /* 4 */
                                   "exclude = web: f\n"                          /* 5 */
                                   "exclude = podman/fedcba9876543210ff: g\n"    /* 6 */
                                   "exclude = database-primary: h\n"             /* 7 */
                                   "exclude = kubernetes/prod/0123456789ab: i\n" /* 8 */
                                   "exclude = deadbeefcafe-db: j\n";             /* 9 */
        struct tsync_node_policy p;
        if (accepted("matcher_policy", text, &p) < 0)
                return;
        static const char id64[] = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";
        static const struct {
                const char *test, *engine, *id, *name;
                int want; /* the exclusion's index, -1: none */
        } rows[] = {
                { "an_unqualified_name_covers_an_id", "runc", "db1", NULL, 0 },
                { "an_unqualified_name_covers_a_name", "podman", id64 + 1, "db1", 0 },
                { "an_unqualified_name_covers_any_engine", "kubernetes", "db1", "prod/x/y", 0 },
                { "the_first_exclusion_in_the_file_wins", "runc", "db1", "web", 0 },
                { "a_qualified_name_covers_its_engine", "docker", "f00", "web-7", 1 },
                { "a_qualified_name_covers_its_engines_id", "docker", "web-7", NULL, 1 },
                { "a_qualified_name_skips_other_engines", "podman", "f00", "web-7", -1 },
                { "a_qualified_name_skips_an_unknown_engine", NULL, "f00", "web-7", -1 },
                { "a_short_id_covers_the_id_it_begins", "containerd", id64, NULL, 2 },
                { "a_short_id_covers_an_equal_id", "runc", "0123456789ab", NULL, 2 },
                { "a_short_id_does_not_cover_a_shorter_id", "runc", "0123456789a", NULL, -1 },
                { "a_short_id_does_not_begin_a_name", "docker", "ffff", "0123456789abcdef", -1 },
                { "a_qualified_short_id_covers_its_engine", "podman", "fedcba9876543210ff00", NULL, 6 },
                { "a_qualified_short_id_skips_other_engines", "docker", "fedcba9876543210ff00", NULL, -1 },
                { "a_name_is_no_prefix", "runc", "web-2", "web-2", -1 },
                { "a_long_name_is_no_prefix", "runc", "database-primary-2", NULL, -1 },
                { "a_long_name_covers_itself", "runc", "database-primary", NULL, 7 },
                { "a_name_that_begins_with_hex_is_no_prefix", "runc", "deadbeefcafe-db-2", NULL, -1 },
                { "a_name_is_exact", "runc", "DB1", "Db1", -1 },
                { "a_pod_covers_its_containers", "kubernetes", "abc", "prod/db/postgres", 3 },
                { "a_pod_covers_its_other_containers", "kubernetes", "abd", "prod/db/metrics", 3 },
                { "a_pod_is_not_a_prefix_of_another_pod", "kubernetes", "abc", "prod/db-0/postgres", -1 },
                { "a_pod_of_another_namespace_is_not_covered", "kubernetes", "abc", "staging/db/postgres", -1 },
                { "a_container_covers_itself", "kubernetes", "abc", "prod/web/nginx", 4 },
                { "a_container_skips_its_pods_others", "kubernetes", "abc", "prod/web/sidecar", -1 },
                { "a_container_is_no_prefix", "kubernetes", "abc", "prod/web/nginx/x", -1 },
                { "a_kubernetes_target_skips_other_engines", "containerd", "abc", "prod/db/postgres", -1 },
                { "a_kubernetes_target_needs_a_name", "kubernetes", "prod/db", NULL, -1 },
                { "a_kubernetes_pod_is_no_id_prefix", "kubernetes", "zzz", "prod/0123456789abcd/c", -1 },
                { "a_short_id_covers_a_full_id_of_any_engine", "docker", id64, "api", 2 },
                { "nothing_covers_a_stranger", "docker", "fff", "api", -1 },
        };
        for (size_t i = 0; i < ARRAY_SIZE(rows); i++) {
                const struct tsync_node_exclude *e =
                        tsync_node_policy_excluded(&p, rows[i].engine, rows[i].id, rows[i].name);
                long got = e ? (long)(e - p.excludes) : -1;
                tap_ok(got == rows[i].want, "test_node_conf_%s: exclusion %ld%s%s", rows[i].test, got,
                       e ? ", reason " : "", e ? e->reason : "");
        }
        const struct tsync_node_exclude *e = tsync_node_policy_excluded(&p, "kubernetes", "x", "prod/db/postgres");
        tap_ok(e && strcmp(e->reason, "d") == 0 && e->line == 4 && strcmp(e->engine, "kubernetes") == 0,
               "test_node_conf_the_match_carries_its_reason_and_line");
        tsync_node_policy_clear(&p);
        tap_ok(tsync_node_policy_excluded(&p, "runc", "db1", NULL) == NULL &&
                       tsync_node_policy_excluded(NULL, "runc", "db1", "db1") == NULL,
               "test_node_conf_no_policy_excludes_nothing");
}

int main(void)
{
        if (geteuid() != 0) {
                tap_skip("needs root: node.conf must be root's", "test_node_conf");
                return tap_done();
        }
        char tmpl[] = "/tmp/tsync-node-conf.XXXXXX";
        static void (*const tests[])(void) = {
                test_node_conf_example,        test_node_conf_accepts,     test_node_conf_refuses_keys,
                test_node_conf_refuses_layers, test_node_conf_refuses_nnp, test_node_conf_refuses_excludes,
                test_node_conf_file,           test_node_conf_excluded,
        };
        return unit_main_in_tmpdir(tmpl, tests, ARRAY_SIZE(tests));
}
