/* inject's prepared views (plan/views.h): what inject writes, how the hooks
 * classify a bundle, the record and the exchange, and every state a crash can
 * leave, each repaired by the recorded container's stop. */
#include <sys/stat.h>

#include "plan/views.h"
#include "unit.h"
#include "util/fileio.h"

static char top[] = "/tmp/test_views.XXXXXX";

static const char lent_text[] = "{\"process\": {\"capabilities\": {\"bounding\": [\"CAP_SYS_ADMIN\"]}}}\n";
static const char exec_text[] = "{\"process\": {\"capabilities\": {\"bounding\": []}}}\n";

/* A fresh bundle dir NAME under top with inject's views written: its fd, or -1. */
static int bundle(const char *name, char path[static 4200])
{
        (void)snprintf(path, 4200, "%s/%s", unit_tmp, name);
        if (mkdir(path, 0755) < 0)
                return -1;
        int fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        struct tsync_err err = { 0 };
        struct tsync_views_text t = { .lent = lent_text,
                                      .lent_len = strlen(lent_text),
                                      .exec = exec_text,
                                      .exec_len = strlen(exec_text),
                                      .summary = "mode layer; layers x" };
        if (fd < 0 || tsync_views_write(fd, path, &t, 0640, &err) < 0) {
                tap_diag("bundle %s: %s", name, err.msg);
                return -1;
        }
        return fd;
}

static bool file_is(int dfd, const char *name, const char *want)
{
        _cleanup_free_ char *text = NULL;
        size_t len;
        return tsync_read_file_at(dfd, name, NULL, 0, 1 << 20, &text, &len, NULL, NULL) == 0 && len == strlen(want) &&
               memcmp(text, want, len) == 0;
}

/* v read afresh from fd: its state, or -1. */
static int state_of(int fd, const char *path, struct tsync_views *v)
{
        struct tsync_err err = { 0 };
        tsync_views_clear(v);
        if (tsync_views_read(fd, path, v, &err) < 0) {
                tap_diag("read: %s", err.msg);
                return -1;
        }
        return (int)v->state;
}

static void test_views_written_by_inject(void)
{
        char path[4200];
        _cleanup_close_ int fd = bundle("written", path);
        struct stat st;
        tap_ok(fd >= 0 && file_is(fd, "config.json", lent_text) && fstatat(fd, "config.json", &st, 0) == 0 &&
                       (st.st_mode & 07777) == 0640,
               "test_views_config_is_the_lent_view");
        _cleanup_close_ int dir = openat(fd, TSYNC_BUNDLE_VIEWS, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        tap_ok(dir >= 0 && file_is(dir, "lent.json", lent_text) && file_is(dir, "exec.json", exec_text) &&
                       file_is(dir, "swap.json", exec_text) && file_is(dir, "summary", "mode layer; layers x"),
               "test_views_files");
        tap_ok(dir >= 0 && faccessat(dir, ".probe-a", F_OK, AT_SYMLINK_NOFOLLOW) < 0 &&
                       faccessat(dir, TSYNC_VIEWS_RUNNING, F_OK, AT_SYMLINK_NOFOLLOW) < 0,
               "test_views_no_probe_no_record");
        struct tsync_err err = { 0 };
        tap_ok(tsync_views_supported(fd, path, &err) == 1, "test_views_tmp_can_exchange: %s", err.msg);
        tap_ok(tsync_views_present(fd) == 1, "test_views_present");
}

static void test_views_start_and_stop(void)
{
        char path[4200];
        _cleanup_close_ int fd = bundle("cycle", path);
        _cleanup_(tsync_views_clear) struct tsync_views v = TSYNC_VIEWS_INIT;
        struct tsync_err err = { 0 };
        tap_ok(state_of(fd, path, &v) == TSYNC_VIEWS_LENT && !v.holder[0] &&
                       strcmp(v.summary, "mode layer; layers x") == 0,
               "test_views_ready");
        int r = tsync_views_hold(&v, path, "c1", &err);
        if (r == 0)
                r = tsync_views_exchange(&v, path, &err);
        tap_ok(r == 0 && v.state == TSYNC_VIEWS_EXEC && file_is(fd, "config.json", exec_text), "test_views_started: %s",
               err.msg);
        tap_ok(state_of(fd, path, &v) == TSYNC_VIEWS_EXEC && strcmp(v.holder, "c1") == 0, "test_views_read_running");
        r = tsync_views_hold(&v, path, "c2", &err);
        tap_ok(r == -EBUSY && strstr(err.msg, "container 'c1' started from this config") &&
                       strstr(err.msg, "if 'c1' is gone"),
               "test_views_second_holder_refused: %s", err.msg);
        err = (struct tsync_err){ 0 };
        tap_ok(tsync_views_remove(fd, path, &err) == -EBUSY, "test_views_not_removed_while_held");
        r = tsync_views_exchange(&v, path, &err);
        if (r == 0)
                r = tsync_views_release(&v, path, &err);
        tap_ok(r == 0 && state_of(fd, path, &v) == TSYNC_VIEWS_LENT && !v.holder[0] &&
                       file_is(fd, "config.json", lent_text),
               "test_views_stopped");
        err = (struct tsync_err){ 0 };
        tap_ok(tsync_views_remove(fd, path, &err) == 0 && tsync_views_present(fd) == 0 &&
                       file_is(fd, "config.json", lent_text),
               "test_views_removed: %s", err.msg);
        tap_ok(tsync_views_read(fd, path, &v, &err) == -ENOENT, "test_views_read_without_views");
}

static void test_views_edited_config(void)
{
        char path[4200], config[4300];
        _cleanup_close_ int fd = bundle("edited", path);
        (void)snprintf(config, sizeof(config), "%s/config.json", path);
        _cleanup_(tsync_views_clear) struct tsync_views v = TSYNC_VIEWS_INIT;
        tap_ok(unit_write_file(config, "{\"process\": {}}\n") == 0 && state_of(fd, path, &v) == TSYNC_VIEWS_OTHER,
               "test_views_an_edit_is_neither_view");
        /* One byte more at the end is an edit too. */
        char longer[sizeof(lent_text) + 1];
        (void)snprintf(longer, sizeof(longer), "%s ", lent_text);
        tap_ok(unit_write_file(config, longer) == 0 && state_of(fd, path, &v) == TSYNC_VIEWS_OTHER,
               "test_views_a_longer_file_is_neither_view");
}

/* A probe file a crash left in inject does not keep the views from going. */
static void test_views_removed_with_a_leftover_probe(void)
{
        char path[4200], probe[4300];
        _cleanup_close_ int fd = bundle("probe", path);
        (void)snprintf(probe, sizeof(probe), "%s/%s/.probe-a", path, TSYNC_BUNDLE_VIEWS);
        struct tsync_err err = { 0 };
        tap_ok(unit_write_file(probe, "") == 0 && tsync_views_remove(fd, path, &err) == 0 &&
                       tsync_views_present(fd) == 0,
               "test_views_removed_with_a_leftover_probe: %s", err.msg);
}

/* inject while a container holds the views: config.json gets the new exec
 * view, swap.json the new lent view; the record stays. */
static void test_views_inject_while_held(void)
{
        char path[4200];
        _cleanup_close_ int fd = bundle("held", path);
        _cleanup_(tsync_views_clear) struct tsync_views v = TSYNC_VIEWS_INIT;
        struct tsync_err err = { 0 };
        int r = state_of(fd, path, &v) == TSYNC_VIEWS_LENT ? tsync_views_hold(&v, path, "c1", &err) : -1;
        if (r == 0)
                r = tsync_views_exchange(&v, path, &err);
        static const char lent2[] = "{\"new\": \"lent\"}\n", exec2[] = "{\"new\": \"exec\"}\n";
        struct tsync_views_text t = {
                .lent = lent2, .lent_len = strlen(lent2), .exec = exec2, .exec_len = strlen(exec2), .summary = "s"
        };
        if (r == 0)
                r = tsync_views_write(fd, path, &t, 0644, &err);
        tap_ok(r == 0 && state_of(fd, path, &v) == TSYNC_VIEWS_EXEC && strcmp(v.holder, "c1") == 0 &&
                       file_is(fd, "config.json", exec2),
               "test_views_written_while_held: %s", err.msg);
}

/* A state a crash can leave after a start (the record, the exchange, or
 * both reached the disk), put back by the stop's steps. */
static void crash_case(const char *name, bool record, bool exchanged)
{
        char path[4200];
        _cleanup_close_ int fd = bundle(name, path);
        _cleanup_(tsync_views_clear) struct tsync_views v = TSYNC_VIEWS_INIT;
        struct tsync_err err = { 0 };
        int r = state_of(fd, path, &v) == TSYNC_VIEWS_LENT ? 0 : -1;
        if (r == 0 && record)
                r = tsync_views_hold(&v, path, "gone", &err);
        if (r == 0 && exchanged)
                r = tsync_views_exchange(&v, path, &err);
        /* poststop's steps (tsync_views_stop): exchange back when exchanged, then drop the record. */
        if (r == 0 && state_of(fd, path, &v) == TSYNC_VIEWS_EXEC)
                r = tsync_views_exchange(&v, path, &err);
        if (r == 0)
                r = tsync_views_release(&v, path, &err);
        tap_ok(r == 0 && state_of(fd, path, &v) == TSYNC_VIEWS_LENT && !v.holder[0], "test_views_crash_%s_repaired: %s",
               name, err.msg);
}

static void test_views_crash_states(void)
{
        crash_case("record_only", true, false);
        crash_case("exchange_only", false, true);
        crash_case("both", true, true);
}

int main(void)
{
        static void (*const tests[])(void) = {
                test_views_written_by_inject, test_views_start_and_stop,
                test_views_edited_config,     test_views_removed_with_a_leftover_probe,
                test_views_inject_while_held, test_views_crash_states,
        };
        return unit_main_in_tmpdir(top, tests, ARRAY_SIZE(tests));
}
