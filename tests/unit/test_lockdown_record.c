/* lockdown's record (hook/lockdown/lockdown_record.c): written and read back
 * whole, root-only or refused, its key from /proc, an empty record removes
 * the file, one lock a container; and the exec'd process's init arguments that carry its layers
 * (tsync_rewrite_exec_add: before the init's "--"). */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lockdown/lockdown_record.h"
#include "plan/rewrite.h"
#include "shared/cleanup.h"
#include "tap.h"
#include "unit.h"
#include "util/json_build.h"
#include "util/sha256.h"

static const struct sock_filter allow[] = { BPF_STMT(BPF_RET | BPF_K, 0x7fff0000u) };
static const struct sock_filter deny[] = { BPF_STMT(BPF_LD | BPF_W | BPF_ABS, 0),
                                           BPF_STMT(BPF_RET | BPF_K, 0x00050000u | 122) };

static void test_lockdown_record_round_trip(const char *root)
{
        struct tsync_err err = { 0 };
        char key[64];
        int r = tsync_lockdown_record_key(getpid(), key, sizeof(key), &err);
        char want[32];
        (void)snprintf(want, sizeof(want), "%d-", (int)getpid());
        tap_ok(r == 0 && strncmp(key, want, strlen(want)) == 0 && strlen(key) > strlen(want),
               "test_lockdown_record_key_is_pid_and_start_time: %s", r == 0 ? key : err.msg);

        struct tsync_lockdown_record rec = { 0 };
        r = tsync_lockdown_record_read(root, key, &rec, &err);
        tap_ok(r == 0 && rec.n == 0, "test_lockdown_record_none_is_empty: %s", r == 0 ? "" : err.msg);

        r = tsync_lockdown_record_add(&rec, "deny-mkdir", deny, 2, 0, 1700000000, &err);
        if (r == 0)
                r = tsync_lockdown_record_add(&rec, "/etc/x.json", allow, 1, 0, 1700000001, &err);
        if (r == 0)
                r = tsync_lockdown_record_write(root, key, &rec, &err);
        tap_ok(r == 0, "test_lockdown_record_written: %s", r == 0 ? "" : err.msg);

        char path[4200];
        struct stat st;
        (void)snprintf(path, sizeof(path), "%s/%s.json", root, key);
        tap_ok(stat(path, &st) == 0 && (st.st_mode & 0777) == 0600, "test_lockdown_record_is_0600");

        struct tsync_lockdown_record back = { 0 };
        r = tsync_lockdown_record_read(root, key, &back, &err);
        char hex[65];
        tsync_sha256_hex(deny, sizeof(deny), hex);
        tap_ok(r == 0 && back.n == 2 && strcmp(back.layers[0].name, "deny-mkdir") == 0 &&
                       strcmp(back.layers[0].sha256, hex) == 0 && back.layers[0].added == 1700000000 &&
                       strcmp(back.layers[1].name, "/etc/x.json") == 0 &&
                       strcmp(back.layers[0].filter, rec.layers[0].filter) == 0,
               "test_lockdown_record_reads_back_what_was_written: %s", r == 0 ? "" : err.msg);
        tsync_lockdown_record_clear(&back);

        /* Anyone else may read or write it: it decides what exec'd processes get. */
        (void)chmod(path, 0644);
        r = tsync_lockdown_record_read(root, key, &back, &err);
        tap_ok(r == -EPERM && strstr(err.msg, "no one else may read or write"),
               "test_lockdown_record_readable_by_others_is_refused: %s", err.msg);
        (void)chmod(path, 0600);

        struct tsync_lockdown_record empty = { 0 };
        r = tsync_lockdown_record_write(root, key, &empty, &err);
        tap_ok(r == 0 && access(path, F_OK) < 0 && errno == ENOENT, "test_lockdown_record_empty_removes_the_file");

        /* Full: no more than an exec'd process's init can take. */
        r = 0;
        while (r == 0 && rec.n < TSYNC_LOCKDOWN_MAX_LAYERS)
                r = tsync_lockdown_record_add(&rec, "x", allow, 1, 0, 1, &err);
        r = tsync_lockdown_record_add(&rec, "one more", allow, 1, 0, 1, &err);
        tap_ok(r == -E2BIG, "test_lockdown_record_refuses_past_its_limit: %s", err.msg);
        tsync_lockdown_record_clear(&rec);
}

/* One lockdown of a container at a time: a second holder (another open
 * file description, as another process has) is told it is held, gets it
 * once the first lets go, and no lock file is left after. */
static void test_lockdown_record_lock(const char *root)
{
        struct tsync_err err = { 0 };
        char path[4200];
        (void)snprintf(path, sizeof(path), "%s/1-2.lock", root);
        int first = -1, second = -1;
        int r = tsync_lockdown_record_lock(root, "1-2", false, &first, &err);
        struct stat st;
        tap_ok(r == 0 && first >= 0 && stat(path, &st) == 0 && (st.st_mode & 0777) == 0600,
               "test_lockdown_record_lock_is_taken_root_only: %s", r == 0 ? "" : err.msg);
        r = tsync_lockdown_record_lock(root, "1-2", false, &second, &err);
        tap_ok(r == -EWOULDBLOCK && second == -1 && strstr(err.msg, "another lockdown of the container holds it"),
               "test_lockdown_record_lock_held_is_said: %s", err.msg);
        r = tsync_lockdown_record_lock(root, "3-4", false, &second, &err);
        tap_ok(r == 0, "test_lockdown_record_lock_of_another_container_is_free: %s", r == 0 ? "" : err.msg);
        tsync_lockdown_record_unlock(root, "3-4", second);
        second = -1;
        tsync_lockdown_record_unlock(root, "1-2", first);
        tap_ok(access(path, F_OK) < 0 && errno == ENOENT, "test_lockdown_record_unlock_removes_the_file");
        r = tsync_lockdown_record_lock(root, "1-2", false, &second, &err);
        tap_ok(r == 0, "test_lockdown_record_lock_is_free_once_let_go: %s", r == 0 ? "" : err.msg);
        tsync_lockdown_record_unlock(root, "1-2", second);
}

static void test_lockdown_record_exec_args(void)
{
        _cleanup_json_ struct tsync_json *p =
                unit_parse("{\"args\": [\"/.oci-seccomp-tsync/init\", \"--exec\", \"--filter\", \"f0\", \"--\", "
                           "\"sh\", \"--\"]}");
        struct tsync_err err = { 0 };
        const char *data[] = { "AAAA", "BBBB" };
        int r = p ? tsync_rewrite_exec_add(p, data, 2, &err) : -EINVAL;
        _cleanup_free_ char *text = NULL;
        size_t len;
        if (r == 0)
                r = tsync_json_write(tsync_json_get(p, "args"), false, &text, &len, &err);
        tap_ok(r == 0 && text &&
                       strcmp(text, "[\"/.oci-seccomp-tsync/init\",\"--exec\",\"--filter\",\"f0\",\"--filter-data\","
                                    "\"AAAA\",\"--filter-data\",\"BBBB\",\"--\",\"sh\",\"--\"]") == 0,
               "test_lockdown_record_layers_go_before_the_inits_double_dash: %s", text ? text : err.msg);
        _cleanup_json_ struct tsync_json *q = unit_parse("{\"args\": [\"sh\"]}");
        r = q ? tsync_rewrite_exec_add(q, data, 1, &err) : -EINVAL;
        tap_ok(r == -EINVAL, "test_lockdown_record_args_without_the_init_are_refused: %s", err.msg);
}

/* The records' directory, removed again and again whenever it is empty (a
 * clean-up of /run, a test's teardown) while lockdowns take and let go their
 * locks in it: each takes its lock all the same, making the directory again.
 * The remover pauses between tries, as no clean-up spins: one that never
 * does keeps an empty directory from existing at all. */
static void test_lockdown_record_lock_outlives_its_directory_removed(const char *root)
{
        pid_t remover = fork();
        if (remover == 0)
                for (;;) {
                        (void)rmdir(root);
                        (void)usleep(20);
                }
        size_t taken = 0, cycles = 2000;
        struct tsync_err err = { 0 };
        for (size_t i = 0; i < cycles && remover > 0; i++) {
                int fd = -1;
                err = (struct tsync_err){ 0 };
                if (tsync_lockdown_record_lock(root, "5-6", false, &fd, &err) == 0) {
                        taken++;
                        tsync_lockdown_record_unlock(root, "5-6", fd);
                } else if (taken == i) {
                        tap_diag("cycle %zu: %s", i, err.msg);
                }
        }
        if (remover > 0) {
                (void)kill(remover, SIGKILL);
                (void)waitpid(remover, NULL, 0);
        }
        tap_ok(remover > 0 && taken == cycles,
               "test_lockdown_record_lock_outlives_its_directory_removed: %zu of %zu taken", taken, cycles);
}

int main(void)
{
        char tmpl[] = "/tmp/tsync-lockdown-record.XXXXXX";
        if (unit_tmpdir(tmpl) < 0)
                return tap_done();
        char root[sizeof(tmpl) + 16];
        (void)snprintf(root, sizeof(root), "%s/lockdown", tmpl);
        test_lockdown_record_round_trip(root);
        test_lockdown_record_lock(root);
        test_lockdown_record_lock_outlives_its_directory_removed(root);
        test_lockdown_record_exec_args();
        return tap_done();
}
