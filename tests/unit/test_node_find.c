/* Finding the node's containers (hook/node/node_find.h): the state files'
 * parsers on their own, then whole state roots made in a temporary directory
 * whose entries name real processes of this test (children that wait), with
 * their real start times or wrong ones, beside hostile entries: links, a
 * file too large, a FIFO, garbage, a root others can write into, a user's
 * root naming root's process. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "node/node_find.h"
#include "unit.h"

#define CHILDREN 6
static pid_t kids[CHILDREN];
static unsigned long long starts[CHILDREN];

/* /proc/PID/stat's 22nd field. */
static unsigned long long start_of(pid_t pid)
{
        char path[64], buf[4096];
        (void)snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
        FILE *f = fopen(path, "re");
        if (!f)
                return 0;
        size_t n = fread(buf, 1, sizeof(buf) - 1, f);
        (void)fclose(f);
        buf[n] = '\0';
        const char *p = strrchr(buf, ')');
        unsigned long long v = 0;
        if (!p ||
            sscanf(p + 1, " %*c %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %llu", &v) != 1)
                return 0;
        return v;
}

static void kill_kids(void)
{
        for (size_t i = 0; i < CHILDREN; i++)
                if (kids[i] > 0) {
                        (void)kill(kids[i], SIGKILL);
                        (void)waitpid(kids[i], NULL, 0);
                }
}

static int mkdirs(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int mkdirs(const char *fmt, ...)
{
        char path[4096], cmd[4200];
        va_list ap;
        va_start(ap, fmt);
        (void)vsnprintf(path, sizeof(path), fmt, ap);
        va_end(ap);
        (void)snprintf(cmd, sizeof(cmd), "mkdir -p -m 0711 '%s'", path);
        return system(cmd) == 0 ? 0 : -1;
}

static void put(const char *path, const char *text)
{
        if (unit_write_file(path, text) < 0)
                tap_diag("cannot write %s", path);
}

/* ROOT/ID/state.json of runc naming pid started at start, bundle, labels. */
static void runc_state(const char *root, const char *id, pid_t pid, unsigned long long start, const char *bundle,
                       const char *labels)
{
        char path[4096], text[8192];
        (void)mkdirs("%s/%s", root, id);
        (void)snprintf(path, sizeof(path), "%s/%s/state.json", root, id);
        (void)snprintf(text, sizeof(text),
                       "{\"id\": \"%s\", \"init_process_pid\": %d, \"init_process_start\": %llu,"
                       " \"created\": \"2026-01-01T00:00:00Z\", \"config\": {\"labels\": [%s\"bundle=%s\"]}}",
                       id, (int)pid, start, labels ? labels : "", bundle);
        put(path, text);
}

static const struct tsync_node_container *find(const struct tsync_node_container *c, size_t n, const char *id)
{
        for (size_t i = 0; i < n; i++)
                if (strcmp(c[i].id, id) == 0)
                        return &c[i];
        return NULL;
}

static bool warned(const struct tsync_warnings *w, const char *what, const char *words)
{
        for (size_t i = 0; i < w->len; i++)
                if (strstr(w->msgs[i], what) && strstr(w->msgs[i], words))
                        return true;
        return false;
}

static void test_node_find_parses_runc_and_crun_state(void)
{
        static const char runc[] =
                "{\"init_process_pid\": 42, \"init_process_start\": 777, \"config\": {\"labels\": ["
                "\"io.container.manager=libpod\", \"io.kubernetes.cri.container-name=app\", \"x\", 3,"
                "\"io.kubernetes.cri.sandbox-name=pod-1\", \"io.kubernetes.cri.sandbox-namespace=ns-1\","
                "\"bundle=/b/u=ndle\"]}}";
        struct tsync_node_state_file f = { 0 };
        struct tsync_err err = { 0 };
        int r = tsync_node_state_parse(TSYNC_NODE_FORMAT_RUNC, runc, strlen(runc), &f, &err);
        tap_ok(r == 0 && f.pid == 42 && f.start_time == 777 && f.bundle && strcmp(f.bundle, "/b/u=ndle") == 0 &&
                       f.manager && strcmp(f.manager, "libpod") == 0 && f.k8s_container &&
                       strcmp(f.k8s_container, "app") == 0 && f.k8s_pod && strcmp(f.k8s_pod, "pod-1") == 0 &&
                       f.k8s_pod_namespace && strcmp(f.k8s_pod_namespace, "ns-1") == 0,
               "test_node_find_parses_runc_state (%s)", err.msg);
        tsync_node_state_file_clear(&f);

        static const char crun[] = "{\"pid\": 9, \"process-start-time\": 5, \"bundle\": \"/x\", \"rootfs\": \"r\"}";
        r = tsync_node_state_parse(TSYNC_NODE_FORMAT_CRUN, crun, strlen(crun), &f, &err);
        tap_ok(r == 0 && f.pid == 9 && f.start_time == 5 && f.bundle && strcmp(f.bundle, "/x") == 0 && !f.manager,
               "test_node_find_parses_crun_status");
        tsync_node_state_file_clear(&f);

        static const char nostart[] = "{\"pid\": 9, \"bundle\": \"/x\"}";
        r = tsync_node_state_parse(TSYNC_NODE_FORMAT_CRUN, nostart, strlen(nostart), &f, &err);
        tap_ok(r == 0 && f.start_time == 0, "test_node_find_parses_a_status_without_start_time_as_0");
        tsync_node_state_file_clear(&f);

        static const char *const bad[] = {
                "{not json",     "[1]", "{\"pid\": \"9\", \"bundle\": \"/x\"}", "{\"pid\": -1}", "{\"bundle\": \"/x\"}",
                "{\"pid\": 1e3}"
        };
        for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
                err = (struct tsync_err){ 0 };
                r = tsync_node_state_parse(TSYNC_NODE_FORMAT_CRUN, bad[i], strlen(bad[i]), &f, &err);
                tap_ok(r < 0 && err.msg[0], "test_node_find_refuses_a_bad_status: %s (%s)", bad[i], err.msg);
        }

        static const char config[] = "{\"annotations\": {\"io.container.manager\": \"libpod\", \"other\": \"x\","
                                     " \"io.kubernetes.cri.container-name\": 5}}";
        r = tsync_node_state_annotations(config, strlen(config), &f, &err);
        tap_ok(r == 0 && f.manager && strcmp(f.manager, "libpod") == 0 && !f.k8s_container,
               "test_node_find_takes_a_configs_annotations");
        tsync_node_state_file_clear(&f);
}

static void test_node_find_names(void)
{
        tap_ok(strcmp(tsync_node_engine_name(TSYNC_NODE_KUBERNETES), "kubernetes") == 0 &&
                       strcmp(tsync_node_engine_name(TSYNC_NODE_DOCKER), "docker") == 0 &&
                       strcmp(tsync_node_state_name(TSYNC_NODE_CREATED), "created") == 0,
               "test_node_find_names_engines_and_states");
}

static void test_node_find_walks_the_roots(void)
{
        char rt[4200], ns[4200], bundle[4200], path[8800];
        (void)snprintf(rt, sizeof(rt), "%s/run/runc", unit_tmp);
        (void)snprintf(ns, sizeof(ns), "%s/run/containerd/runc", unit_tmp);
        (void)snprintf(bundle, sizeof(bundle), "%s/bundle", unit_tmp);
        (void)mkdirs("%s", rt);
        (void)mkdirs("%s", ns);
        (void)mkdirs("%s", bundle);
        (void)chmod(rt, 0700);

        /* A runc container, and a second entry naming its pid (kept once). */
        runc_state(rt, "good-runc", kids[0], starts[0], bundle, NULL);
        runc_state(rt, "zz-dup", kids[0], starts[0], bundle, NULL);
        /* crun's, of Podman: its name in the storage's containers.json. */
        (void)mkdirs("%s/storage/overlay-containers/good-crun/userdata", unit_tmp);
        (void)snprintf(path, sizeof(path), "%s/storage/overlay-containers/containers.json", unit_tmp);
        put(path, "[{\"id\": \"other\", \"names\": [\"no\"]}, {\"id\": \"good-crun\", \"names\": [\"web\", \"x\"]}]");
        (void)mkdirs("%s/good-crun", rt);
        (void)snprintf(path, sizeof(path), "%s/good-crun/status", rt);
        char text[8192];
        (void)snprintf(text, sizeof(text),
                       "{\"pid\": %d, \"process-start-time\": %llu, \"bundle\": "
                       "\"%s/storage/overlay-containers/good-crun/userdata\"}",
                       (int)kids[1], starts[1], unit_tmp);
        put(path, text);
        (void)snprintf(path, sizeof(path), "%s/good-crun/config.json", rt);
        put(path, "{\"annotations\": {\"io.container.manager\": \"libpod\"}}");
        /* Created, not started: exec.fifo is there. */
        runc_state(rt, "created", kids[2], starts[2], bundle, NULL);
        (void)snprintf(path, sizeof(path), "%s/created/exec.fifo", rt);
        (void)mkfifo(path, 0622);
        /* Stale: the pid runs, but started at another time; pid 1 likewise. */
        runc_state(rt, "stale", kids[3], starts[3] + 1, bundle, NULL);
        runc_state(rt, "pid1", 1, 99999999999ull, bundle, NULL);
        /* Stopped: its pid is gone (a child reaped). */
        pid_t gone = fork();
        if (gone == 0)
                _exit(0);
        (void)waitpid(gone, NULL, 0);
        runc_state(rt, "stopped", gone, 12345, bundle, NULL);
        /* Hostile: a link to a container's directory, a state.json that is a
         * link, too large, a FIFO, not JSON; no start time; a relative bundle. */
        (void)snprintf(path, sizeof(path), "%s/link", rt);
        (void)symlink("good-runc", path);
        (void)mkdirs("%s/linkfile", rt);
        (void)snprintf(path, sizeof(path), "%s/linkfile/state.json", rt);
        (void)symlink("../good-runc/state.json", path);
        (void)mkdirs("%s/huge", rt);
        (void)snprintf(path, sizeof(path), "%s/huge/state.json", rt);
        _cleanup_free_ char *big = malloc(2u << 20);
        if (big) {
                memset(big, ' ', (2u << 20) - 1);
                big[(2u << 20) - 1] = '\0';
                put(path, big);
        }
        (void)mkdirs("%s/fifo", rt);
        (void)snprintf(path, sizeof(path), "%s/fifo/state.json", rt);
        (void)mkfifo(path, 0600);
        (void)mkdirs("%s/garbage", rt);
        (void)snprintf(path, sizeof(path), "%s/garbage/state.json", rt);
        put(path, "{\"init_process_pid\": ");
        (void)mkdirs("%s/nostart", rt);
        (void)snprintf(path, sizeof(path), "%s/nostart/status", rt);
        (void)snprintf(text, sizeof(text), "{\"pid\": %d, \"bundle\": \"/b\"}", (int)kids[3]);
        put(path, text);
        runc_state(rt, "relative", kids[3], starts[3], "b", NULL);

        /* containerd's namespaces: Kubernetes' (the CRI's names), Docker's
         * (its name in the data root its bundle's work links to), ctr's. */
        char labels[1024];
        (void)snprintf(labels, sizeof(labels),
                       "\"io.kubernetes.cri.container-name=app\", \"io.kubernetes.cri.sandbox-name=pod-1\","
                       " \"io.kubernetes.cri.sandbox-namespace=team\", ");
        char k8s[4400], moby[4400], def[4400];
        (void)snprintf(k8s, sizeof(k8s), "%s/k8s.io", ns);
        (void)snprintf(moby, sizeof(moby), "%s/moby", ns);
        (void)snprintf(def, sizeof(def), "%s/default", ns);
        runc_state(k8s, "c-k8s", kids[5], starts[5], bundle, labels);
        (void)mkdirs("%s/exec/moby/c-moby", unit_tmp);
        (void)mkdirs("%s/data/containerd/daemon/io.containerd.runtime.v2.task/moby/c-moby", unit_tmp);
        (void)mkdirs("%s/data/containers/c-moby", unit_tmp);
        (void)snprintf(path, sizeof(path), "%s/data/containers/c-moby/config.v2.json", unit_tmp);
        put(path, "{\"ID\": \"c-moby\", \"Name\": \"/webd\"}");
        char target[4400], dbundle[4400];
        (void)snprintf(dbundle, sizeof(dbundle), "%s/exec/moby/c-moby", unit_tmp);
        (void)snprintf(target, sizeof(target), "%s/data/containerd/daemon/io.containerd.runtime.v2.task/moby/c-moby",
                       unit_tmp);
        (void)snprintf(path, sizeof(path), "%s/work", dbundle);
        (void)symlink(target, path);
        runc_state(moby, "c-moby", kids[3], starts[3], dbundle, NULL);
        runc_state(def, "c-ctr", kids[4], starts[4], bundle, NULL);
        /* A namespace that is a link: not followed. */
        (void)snprintf(path, sizeof(path), "%s/linked-ns", ns);
        (void)symlink(k8s, path);

        const struct tsync_node_root roots[] = { { rt, TSYNC_NODE_LAYOUT_RUNTIME },
                                                 { ns, TSYNC_NODE_LAYOUT_NAMESPACES } };
        struct tsync_node_find_opts o = { .roots = roots, .n_roots = ARRAY_SIZE(roots), .only_roots = true };
        struct tsync_node_container *c = NULL;
        size_t n = 0;
        struct tsync_warnings w = { 0 };
        struct tsync_err err = { 0 };
        int r = tsync_node_find(&o, &c, &n, &w, &err);
        tap_ok(r == 0, "test_node_find_finds (%s)", err.msg);
        for (size_t i = 0; i < w.len; i++)
                tap_diag("warning: %s", w.msgs[i]);
        for (size_t i = 0; i < n; i++)
                tap_diag("found: %s %s pid %d %s", tsync_node_engine_name(c[i].engine), c[i].id, (int)c[i].pid,
                         c[i].name ? c[i].name : "-");

        const struct tsync_node_container *x = find(c, n, "good-runc");
        char config[4400];
        (void)snprintf(config, sizeof(config), "%s/config.json", bundle);
        tap_ok(x && x->engine == TSYNC_NODE_RUNC && x->format == TSYNC_NODE_FORMAT_RUNC && x->pid == kids[0] &&
                       x->start_time == starts[0] && x->state == TSYNC_NODE_RUNNING && !x->name && !x->namespace &&
                       strcmp(x->root, rt) == 0 && strcmp(x->bundle, bundle) == 0 && strcmp(x->config, config) == 0 &&
                       x->owner == geteuid(),
               "test_node_find_finds_a_runc_container");
        tap_ok(!find(c, n, "zz-dup"), "test_node_find_keeps_a_pid_once");
        x = find(c, n, "good-crun");
        tap_ok(x && x->engine == TSYNC_NODE_PODMAN && x->format == TSYNC_NODE_FORMAT_CRUN && x->pid == kids[1] &&
                       x->name && strcmp(x->name, "web") == 0,
               "test_node_find_finds_a_podman_container_of_crun_and_its_name");
        x = find(c, n, "created");
        tap_ok(x && x->state == TSYNC_NODE_CREATED, "test_node_find_says_created_while_exec_fifo_is_there");
        tap_ok(!find(c, n, "stale") && warned(&w, "/stale", "not at"),
               "test_node_find_skips_a_pid_that_started_at_another_time");
        tap_ok(!find(c, n, "pid1") && warned(&w, "/pid1", "not at"),
               "test_node_find_does_not_believe_a_host_process_with_a_wrong_start_time");
        tap_ok(!find(c, n, "stopped") && !warned(&w, "/stopped", ""), "test_node_find_skips_a_stopped_one_quietly");
        tap_ok(!find(c, n, "link") && warned(&w, "/link: ", "a symbolic link: not followed"),
               "test_node_find_does_not_follow_a_linked_directory");
        tap_ok(!find(c, n, "linkfile") && warned(&w, "/linkfile", ""), "test_node_find_does_not_follow_a_linked_file");
        tap_ok(!find(c, n, "huge") && warned(&w, "/huge", "limit"), "test_node_find_refuses_a_huge_file");
        tap_ok(!find(c, n, "fifo") && warned(&w, "/fifo", ""), "test_node_find_refuses_a_fifo_without_waiting");
        tap_ok(!find(c, n, "garbage") && warned(&w, "/garbage", ""), "test_node_find_refuses_garbage");
        tap_ok(!find(c, n, "nostart") && warned(&w, "/nostart", "no start time"),
               "test_node_find_refuses_a_pid_without_start_time");
        tap_ok(!find(c, n, "relative") && warned(&w, "/relative", "absolute"),
               "test_node_find_refuses_a_relative_bundle");
        x = find(c, n, "c-k8s");
        tap_ok(x && x->engine == TSYNC_NODE_KUBERNETES && x->namespace && strcmp(x->namespace, "k8s.io") == 0 &&
                       x->name && strcmp(x->name, "app") == 0 && x->pod && strcmp(x->pod, "pod-1") == 0 &&
                       x->pod_namespace && strcmp(x->pod_namespace, "team") == 0 && x->state == TSYNC_NODE_RUNNING,
               "test_node_find_finds_a_kubernetes_container_and_its_names");
        x = find(c, n, "c-moby");
        tap_ok(x && x->engine == TSYNC_NODE_DOCKER && x->name && strcmp(x->name, "webd") == 0,
               "test_node_find_finds_a_docker_container_and_its_name");
        x = find(c, n, "c-ctr");
        tap_ok(x && x->engine == TSYNC_NODE_CONTAINERD && strcmp(x->namespace, "default") == 0 && !x->name,
               "test_node_find_finds_a_ctr_container");
        tap_ok(warned(&w, "/linked-ns: ", "a symbolic link: not followed"),
               "test_node_find_does_not_follow_a_linked_namespace");
        tap_ok(n == 6, "test_node_find_finds_six_containers (%zu)", n);
        for (size_t i = 1; i < n; i++)
                if (c[i - 1].engine > c[i].engine)
                        tap_ok(0, "test_node_find_sorts_by_engine");
        tsync_node_containers_free(c, n);
        tsync_warnings_clear(&w);

        /* The node's own roots are read too without only_roots; ours first,
         * so nothing of this test's is found twice. */
        o.only_roots = false;
        r = tsync_node_find(&o, &c, &n, &w, &err);
        size_t ours = 0;
        for (size_t i = 0; r == 0 && i < n; i++)
                for (size_t k = 0; k < CHILDREN; k++)
                        ours += c[i].pid == kids[k];
        tap_ok(r == 0 && ours == 6, "test_node_find_reads_the_node_beside_given_roots (%zu of ours)", ours);
        tsync_node_containers_free(c, n);
        tsync_warnings_clear(&w);

        /* A root others can write into is no one's word. */
        (void)chmod(rt, 0777);
        const struct tsync_node_root open_root = { rt, TSYNC_NODE_LAYOUT_RUNTIME };
        o = (struct tsync_node_find_opts){ .roots = &open_root, .n_roots = 1, .only_roots = true };
        r = tsync_node_find(&o, &c, &n, &w, &err);
        tap_ok(r == 0 && n == 0 && warned(&w, rt, "writable by others"), "test_node_find_refuses_a_root_others_write");
        tsync_node_containers_free(c, n);
        tsync_warnings_clear(&w);
        (void)chmod(rt, 0700);

        /* A missing root is no error. */
        const struct tsync_node_root missing = { "/nonexistent/tsync-root", TSYNC_NODE_LAYOUT_RUNTIME };
        o = (struct tsync_node_find_opts){ .roots = &missing, .n_roots = 1, .only_roots = true };
        r = tsync_node_find(&o, &c, &n, &w, &err);
        tap_ok(r == 0 && n == 0 && w.len == 0, "test_node_find_takes_a_missing_root_for_none");
        tsync_node_containers_free(c, n);
        tsync_warnings_clear(&w);
}

/* A user's root is the user's word for the user's processes alone. */
static void test_node_find_a_users_root(void)
{
        if (geteuid() != 0) {
                tap_skip("not root", "test_node_find_does_not_believe_a_users_root_naming_roots_process");
                return;
        }
        char root[4200], cmd[9000];
        (void)snprintf(root, sizeof(root), "%s/user/runc", unit_tmp);
        (void)mkdirs("%s", root);
        runc_state(root, "mine", kids[0], starts[0], "/b", NULL);
        (void)snprintf(cmd, sizeof(cmd), "chown -R 65534 '%s/user' && chmod 0700 '%s'", unit_tmp, root);
        tap_ok(system(cmd) == 0, "chown");
        const struct tsync_node_root r1 = { root, TSYNC_NODE_LAYOUT_RUNTIME };
        struct tsync_node_find_opts o = { .roots = &r1, .n_roots = 1, .only_roots = true };
        struct tsync_node_container *c = NULL;
        size_t n = 0;
        struct tsync_warnings w = { 0 };
        struct tsync_err err = { 0 };
        int r = tsync_node_find(&o, &c, &n, &w, &err);
        tap_ok(r == 0 && n == 0 && warned(&w, "/mine", "not a process of uid 65534"),
               "test_node_find_does_not_believe_a_users_root_naming_roots_process");
        tsync_node_containers_free(c, n);
        tsync_warnings_clear(&w);
        /* The user's own process, but a config that is not the user's. */
        pid_t users = fork();
        if (users == 0) {
                if (setgid(65534) == 0 && setuid(65534) == 0)
                        for (;;)
                                (void)pause();
                _exit(1);
        }
        usleep(100000);
        char bundle[4400], config[4500];
        (void)snprintf(bundle, sizeof(bundle), "%s/user/bundle", unit_tmp);
        (void)mkdirs("%s", bundle);
        (void)snprintf(config, sizeof(config), "%s/config.json", bundle);
        put(config, "{}");
        runc_state(root, "users", users, start_of(users), bundle, NULL);
        (void)snprintf(cmd, sizeof(cmd), "chown -R 65534 '%s/user' && chown 0 '%s'", unit_tmp, config);
        tap_ok(system(cmd) == 0, "chown");
        (void)snprintf(cmd, sizeof(cmd), "rm -rf '%s/mine'", root);
        (void)system(cmd);
        r = tsync_node_find(&o, &c, &n, &w, &err);
        tap_ok(r == 0 && n == 0 && warned(&w, "/users", "its config is owned by uid 0"),
               "test_node_find_does_not_take_a_users_state_naming_roots_config");
        tsync_node_containers_free(c, n);
        tsync_warnings_clear(&w);
        (void)snprintf(cmd, sizeof(cmd), "chown 65534 '%s'", config);
        tap_ok(system(cmd) == 0, "chown");
        r = tsync_node_find(&o, &c, &n, &w, &err);
        tap_ok(r == 0 && n == 1 && c[0].pid == users && c[0].owner == 65534,
               "test_node_find_believes_a_users_root_for_the_users_process (%zu)", n);
        tsync_node_containers_free(c, n);
        tsync_warnings_clear(&w);
        (void)kill(users, SIGKILL);
        (void)waitpid(users, NULL, 0);
        (void)snprintf(cmd, sizeof(cmd), "rm -rf '%s/users'", root);
        (void)system(cmd);
        runc_state(root, "mine", kids[0], starts[0], "/b", NULL);
        /* The same entry, owned by root in a root of root's, is believed. */
        (void)snprintf(cmd, sizeof(cmd), "chown -R 0 '%s/user'", unit_tmp);
        tap_ok(system(cmd) == 0, "chown back");
        r = tsync_node_find(&o, &c, &n, &w, &err);
        tap_ok(r == 0 && n == 1 && c[0].owner == 0, "test_node_find_believes_it_in_roots_root");
        tsync_node_containers_free(c, n);
        tsync_warnings_clear(&w);
}

int main(void)
{
        char tmpl[] = "/tmp/tsync-node-find.XXXXXX";
        if (unit_tmpdir(tmpl) < 0)
                return tap_done();
        for (size_t i = 0; i < CHILDREN; i++) {
                kids[i] = fork();
                if (kids[i] == 0) {
                        for (;;)
                                (void)pause();
                }
                starts[i] = kids[i] > 0 ? start_of(kids[i]) : 0;
        }
        atexit(kill_kids);
        test_node_find_parses_runc_and_crun_state();
        test_node_find_names();
        test_node_find_walks_the_roots();
        test_node_find_a_users_root();
        return tap_done();
}
