/* The one rule for every file we write (util/fileio.h), on a real filesystem:
 * what is replaced, what is written in place, what is refused and left as it
 * was. Devices are made with mknod in the test's own directory. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

#include "shared/cleanup.h"
#include "tap.h"
#include "unit.h"
#include "util/fileio.h"

static char top[] = "/tmp/test_fileio.XXXXXX";

static void at(char *buf, size_t size, const char *name)
{
        (void)snprintf(buf, size, "%s/%s", top, name);
}

static int read_text(const char *path, char *buf, size_t size)
{
        int fd = open(path, O_RDONLY | O_CLOEXEC);
        if (fd < 0)
                return -1;
        ssize_t n = read(fd, buf, size - 1);
        (void)close(fd);
        if (n < 0)
                return -1;
        buf[n] = '\0';
        return 0;
}

/* Nothing but the names given is left in top (no temp files). */
static int only(const char *const *names, size_t n)
{
        char cmd[256], line[256];
        (void)snprintf(cmd, sizeof(cmd), "ls -A '%s'", top);
        FILE *f = popen(cmd, "r");
        int stray = 0;
        if (!f)
                return 0;
        while (fgets(line, sizeof(line), f)) {
                line[strcspn(line, "\n")] = '\0';
                bool known = false;
                for (size_t i = 0; i < n && !known; i++)
                        known = strcmp(line, names[i]) == 0;
                if (!known) {
                        tap_diag("stray file %s", line);
                        stray++;
                }
        }
        (void)pclose(f);
        return stray == 0;
}

static void test_fileio_new_and_replaced_files(void)
{
        struct tsync_err err = { 0 };
        char p[256], link2[256], text[64];
        struct stat st;

        at(p, sizeof(p), "new");
        mode_t old = umask(0077);
        int r = tsync_write_atomic(p, "one", 3, 0444, true, &err);
        (void)umask(old);
        memset(&st, 0, sizeof(st));
        if (r == 0)
                r = stat(p, &st) < 0 ? -errno : read_text(p, text, sizeof(text));
        tap_ok(r == 0 && (st.st_mode & 07777) == 0444 && strcmp(text, "one") == 0,
               "test_fileio_new_file_gets_its_mode_whatever_the_umask: %d %s %o", r, err.msg,
               (unsigned)(st.st_mode & 07777));

        /* Replacing ours is a rename: another name of the old file keeps the old content. */
        at(link2, sizeof(link2), "hardlink");
        (void)link(p, link2);
        r = tsync_write_atomic(p, "two", 3, 0644, false, &err);
        tap_ok(r == 0 && read_text(p, text, sizeof(text)) == 0 && strcmp(text, "two") == 0,
               "test_fileio_replaces_our_file");
        tap_ok(read_text(link2, text, sizeof(text)) == 0 && strcmp(text, "one") == 0,
               "test_fileio_replacement_is_a_rename_not_a_rewrite");
        static const char *const names[] = { "new", "hardlink" };
        tap_ok(only(names, 2), "test_fileio_leaves_no_temp_file");
}

/* Every kind of name that strict writers (inject, the hook) must refuse and leave alone. */
static void test_fileio_strict_refusals(void)
{
        struct tsync_err err = { 0 };
        char p[256], target[256], text[64];
        struct stat st;
        int r;

        at(target, sizeof(target), "target");
        (void)unit_write_file(target, "keep");
        at(p, sizeof(p), "symlink");
        (void)symlink(target, p);
        r = tsync_write_atomic(p, "x", 1, 0644, false, &err);
        tap_ok(r == -ELOOP && strstr(err.msg, "is a symbolic link: refusing to write through or replace it") &&
                       lstat(p, &st) == 0 && S_ISLNK(st.st_mode) && read_text(target, text, sizeof(text)) == 0 &&
                       strcmp(text, "keep") == 0,
               "test_fileio_refuses_a_symlink: %d %s", r, err.msg);

        at(p, sizeof(p), "null");
        if (mknod(p, S_IFCHR | 0666, makedev(1, 3)) == 0) {
                r = tsync_write_atomic(p, "x", 1, 0644, false, &err);
                tap_ok(r == -EINVAL && strstr(err.msg, "is a character device: refusing to replace it") &&
                               lstat(p, &st) == 0 && S_ISCHR(st.st_mode),
                       "test_fileio_strict_refuses_a_character_device: %d %s", r, err.msg);
        } else {
                tap_skip(strerror(errno), "test_fileio_strict_refuses_a_character_device");
        }

        at(p, sizeof(p), "fifo");
        (void)mkfifo(p, 0600);
        r = tsync_write_atomic(p, "x", 1, 0644, false, &err);
        tap_ok(r == -EINVAL && strstr(err.msg, "is a FIFO") && lstat(p, &st) == 0 && S_ISFIFO(st.st_mode),
               "test_fileio_strict_refuses_a_fifo: %d %s", r, err.msg);

        at(p, sizeof(p), "dir");
        (void)mkdir(p, 0700);
        r = tsync_write_atomic(p, "x", 1, 0644, false, &err);
        tap_ok(r == -EISDIR && strstr(err.msg, "is a directory"), "test_fileio_refuses_a_directory: %d %s", r, err.msg);

        if (geteuid() == 0) {
                at(p, sizeof(p), "theirs");
                (void)unit_write_file(p, "theirs");
                (void)chown(p, 65534, 65534);
                r = tsync_write_atomic(p, "x", 1, 0644, false, &err);
                tap_ok(r == -EPERM && strstr(err.msg, "owned by uid 65534") && stat(p, &st) == 0 && st.st_uid == 65534,
                       "test_fileio_refuses_another_users_file: %d %s", r, err.msg);
        } else {
                tap_skip("needs root to chown", "test_fileio_refuses_another_users_file");
        }

        /* The last directory must not be a link either: a bundle's owner could plant one. */
        char dirlink[256];
        at(dirlink, sizeof(dirlink), "dirlink");
        (void)symlink(top, dirlink);
        at(p, sizeof(p), "dirlink/via-link");
        r = tsync_write_atomic(p, "x", 1, 0644, false, &err);
        tap_ok(r == -ELOOP && access(p, F_OK) < 0, "test_fileio_strict_refuses_a_symlinked_directory: %d %s", r,
               err.msg);
}

/* A user-named output: devices and FIFOs with a reader in place, never a wait. */
static void test_fileio_outputs(void)
{
        struct tsync_err err = { 0 };
        char p[256], text[64];
        struct stat st;
        int r;

        at(p, sizeof(p), "null");
        r = lstat(p, &st) == 0 && S_ISCHR(st.st_mode) ? tsync_write_output(p, "x", 1, 0644, &err) : -ENOENT;
        if (r == -ENOENT)
                tap_skip("no device node", "test_fileio_output_writes_a_character_device_in_place");
        else
                tap_ok(r == 0 && lstat(p, &st) == 0 && S_ISCHR(st.st_mode) && st.st_rdev == makedev(1, 3),
                       "test_fileio_output_writes_a_character_device_in_place: %d %s", r, err.msg);

        at(p, sizeof(p), "fifo");
        r = tsync_write_output(p, "x", 1, 0644, &err);
        tap_ok(r == -ENXIO && strstr(err.msg, "a FIFO without a reader"),
               "test_fileio_output_refuses_a_fifo_without_reader: %d %s", r, err.msg);
        int rd = open(p, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
        r = tsync_write_output(p, "hello", 5, 0644, &err);
        ssize_t n = rd >= 0 ? read(rd, text, sizeof(text) - 1) : -1;
        if (rd >= 0)
                (void)close(rd);
        tap_ok(r == 0 && n == 5 && memcmp(text, "hello", 5) == 0,
               "test_fileio_output_writes_a_fifo_with_a_reader: %d %zd %s", r, n, err.msg);

        at(p, sizeof(p), "symlink");
        r = tsync_write_output(p, "x", 1, 0644, &err);
        tap_ok(r == -ELOOP, "test_fileio_output_refuses_a_symlink: %d %s", r, err.msg);

        at(p, sizeof(p), "out");
        r = tsync_write_output(p, "out", 3, 0600, &err);
        tap_ok(r == 0 && read_text(p, text, sizeof(text)) == 0 && strcmp(text, "out") == 0,
               "test_fileio_output_creates_a_new_file: %d %s", r, err.msg);
}

/* A content in pieces (the exec view's spliced config.json): the same rule,
 * the pieces one after the other, empty ones included. */
static void test_fileio_pieces(void)
{
        struct tsync_err err = { 0 };
        char p[256], text[64];
        int r;

        at(p, sizeof(p), "pieces");
        _cleanup_close_ int dfd = open(top, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        struct iovec iov[] = { { "ab", 2 }, { "", 0 }, { "cd", 2 }, { "e", 1 } };
        r = tsync_write_atv(dfd, p, "pieces", iov, ARRAY_SIZE(iov), 0644, 0, &err);
        tap_ok(r == 0 && read_text(p, text, sizeof(text)) == 0 && strcmp(text, "abcde") == 0,
               "test_fileio_pieces_are_written_in_order: %d %s", r, err.msg);
        r = tsync_write_atv(dfd, p, "pieces", iov, ARRAY_SIZE(iov) - 1, 0644, 0, &err);
        tap_ok(r == 0 && read_text(p, text, sizeof(text)) == 0 && strcmp(text, "abcd") == 0,
               "test_fileio_pieces_replace_the_file: %d %s", r, err.msg);
        struct iovec many[TSYNC_WRITE_MAX_PIECES + 1] = { { 0 } };
        r = tsync_write_atv(dfd, p, "pieces", many, ARRAY_SIZE(many), 0644, 0, &err);
        tap_ok(r == -EINVAL && read_text(p, text, sizeof(text)) == 0 && strcmp(text, "abcd") == 0,
               "test_fileio_too_many_pieces_are_refused: %d %s", r, err.msg);

        /* A short write (the file size limit stops the first writev after 3 of
         * its bytes) goes on from the byte it stopped at: the next writev is
         * refused (EFBIG), and the 3 bytes are the first 3 in order. */
        at(p, sizeof(p), "short");
        pid_t pid = fork();
        if (pid == 0) {
                struct rlimit lim = { 3, 3 };
                (void)signal(SIGXFSZ, SIG_IGN);
                int fd = open(p, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
                if (fd < 0 || setrlimit(RLIMIT_FSIZE, &lim) < 0)
                        _exit(2);
                struct iovec two[] = { { "ab", 2 }, { "cdef", 4 } };
                _exit(tsync_write_allv(fd, two, 2) == -EFBIG ? 0 : 1);
        }
        int status = -1;
        if (pid > 0)
                (void)waitpid(pid, &status, 0);
        tap_ok(pid > 0 && WIFEXITED(status) && WEXITSTATUS(status) == 0 && read_text(p, text, sizeof(text)) == 0 &&
                       strcmp(text, "abc") == 0,
               "test_fileio_pieces_go_on_after_a_short_write: status %d, '%s'", status, text);
}

static void test_fileio_private_dir(void)
{
        struct tsync_err err = { 0 };
        struct stat st = { .st_mode = S_IFDIR | 0755, .st_uid = geteuid() };
        tap_ok(tsync_check_private_dir("d", &st, &err) == 0, "test_fileio_private_dir_accepts_0755_of_ours");
        char want[128];
        (void)snprintf(want, sizeof(want), "d: must be a directory owned by uid %u and writable by it alone",
                       (unsigned)geteuid());
        st.st_mode = S_IFDIR | 0775;
        tap_ok(tsync_check_private_dir("d", &st, &err) == -EPERM && strcmp(err.msg, want) == 0,
               "test_fileio_private_dir_refuses_group_writable: %s", err.msg);
        st.st_mode = S_IFDIR | 01777;
        tap_ok(tsync_check_private_dir("d", &st, &err) == -EPERM,
               "test_fileio_private_dir_refuses_sticky_world_writable");
        st.st_mode = S_IFDIR | 0700;
        st.st_uid = geteuid() + 1;
        tap_ok(tsync_check_private_dir("d", &st, &err) == -EPERM, "test_fileio_private_dir_refuses_another_owner");
        st.st_mode = S_IFLNK | 0777;
        st.st_uid = geteuid();
        tap_ok(tsync_check_private_dir("d", &st, &err) == -EPERM, "test_fileio_private_dir_refuses_a_symlink");
}

/* The one bounded reader: the limit exact and one past it, a FIFO without a
 * writer (no hang), the open options, and a /proc file whose size says 0. */
static void test_fileio_bounded_reads(void)
{
        struct tsync_err err = { 0 };
        char path[512], *buf = NULL;
        size_t len = 0;
        struct stat st;
        _cleanup_close_ int dfd = open(top, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

        at(path, sizeof(path), "ten");
        (void)unit_write_file(path, "0123456789");
        int r = tsync_read_file_at(dfd, "ten", "ten", TSYNC_READ_REGULAR, 10, &buf, &len, &st, &err);
        tap_ok(r == 0 && len == 10 && strcmp(buf, "0123456789") == 0 && st.st_size == 10,
               "test_fileio_reads_a_file_exactly_at_the_limit (%s)", err.msg);
        free(buf);
        buf = NULL;
        r = tsync_read_file_at(dfd, "ten", "ten", 0, 9, &buf, &len, NULL, &err);
        tap_ok(r == -EFBIG && !buf && strcmp(err.msg, "ten: 10 bytes is more than the limit of 9 bytes") == 0,
               "test_fileio_refuses_a_file_past_the_limit (%s)", err.msg);

        at(path, sizeof(path), "link");
        (void)symlink("ten", path);
        r = tsync_read_file_at(dfd, "link", "link", TSYNC_READ_NOFOLLOW, 100, &buf, &len, NULL, &err);
        tap_ok(r == -ELOOP && !buf, "test_fileio_nofollow_refuses_a_link (%s)", err.msg);
        r = tsync_read_file_at(dfd, "link", "link", 0, 100, &buf, &len, NULL, &err);
        tap_ok(r == 0 && buf && strcmp(buf, "0123456789") == 0, "test_fileio_follows_a_link_unless_told (%s)", err.msg);
        free(buf);
        buf = NULL;

        at(path, sizeof(path), "fifo");
        (void)mkfifo(path, 0600);
        r = tsync_read_file_at(dfd, "fifo", NULL, TSYNC_READ_OPEN_NONBLOCK | TSYNC_READ_REGULAR, 100, &buf, &len, NULL,
                               &err);
        tap_ok(r == -EINVAL && !buf && strcmp(err.msg, "not a regular file") == 0,
               "test_fileio_a_fifo_is_not_regular_and_no_hang (%s)", err.msg);
        r = tsync_read_file_at(dfd, "fifo", "fifo", TSYNC_READ_OPEN_NONBLOCK, 100, &buf, &len, NULL, &err);
        tap_ok(r == 0 && len == 0 && buf && buf[0] == '\0', "test_fileio_a_fifo_without_writer_reads_empty (%s)",
               err.msg);
        free(buf);
        buf = NULL;

        r = tsync_read_file_at(AT_FDCWD, top, "top", 0, 100, &buf, &len, NULL, &err);
        tap_ok(r == -EISDIR && !buf && strcmp(err.msg, "top: is a directory") == 0,
               "test_fileio_read_refuses_a_directory (%s)", err.msg);
        r = tsync_read_file_at(dfd, "missing", "missing", 0, 100, &buf, &len, NULL, &err);
        tap_ok(r == -ENOENT && !buf && strncmp(err.msg, "missing: ", 9) == 0, "test_fileio_names_a_missing_file (%s)",
               err.msg);

        /* /proc/self/status says it has no size: read to its end, and bounded all the same. */
        r = tsync_read_file_at(AT_FDCWD, "/proc/self/status", "status", TSYNC_READ_REGULAR, 1 << 20, &buf, &len, NULL,
                               &err);
        tap_ok(r == 0 && len > 100 && strstr(buf, "\nCapBnd:") && strlen(buf) == len,
               "test_fileio_reads_a_proc_file_whole (%s)", err.msg);
        free(buf);
        buf = NULL;
        r = tsync_read_file_at(AT_FDCWD, "/proc/self/status", "status", 0, 100, &buf, &len, NULL, &err);
        tap_ok(r == -EFBIG && !buf && strcmp(err.msg, "status: input is more than the limit of 100 bytes") == 0,
               "test_fileio_bounds_a_proc_file (%s)", err.msg);
        /* A caller that keeps no message still gets the file's own errno, not EINVAL. */
        r = tsync_read_file_at(AT_FDCWD, "/proc/self/status", "status", 0, 100, &buf, &len, NULL, NULL);
        tap_ok(r == -EFBIG && !buf, "test_fileio_read_without_an_error_object_keeps_the_errno: %d", r);
        r = tsync_read_file_at(dfd, "missing", "missing", 0, 100, &buf, &len, NULL, NULL);
        tap_ok(r == -ENOENT && !buf, "test_fileio_read_without_an_error_object_names_enoent: %d", r);

        int p[2];
        if (pipe2(p, O_CLOEXEC) == 0) {
                (void)tsync_write_all(p[1], "abc", 3);
                (void)close(p[1]);
                r = tsync_read_all(p[0], 3, 0, &buf, &len, &err);
                (void)close(p[0]);
                tap_ok(r == 0 && len == 3 && strcmp(buf, "abc") == 0, "test_fileio_reads_a_pipe_to_its_end (%s)",
                       err.msg);
                free(buf);
                buf = NULL;
        }
}

/* The last line of a runtime's log, for a message: a table of file texts. */
static void test_fileio_last_line(void)
{
        static const struct {
                const char *name, *text;
                size_t size; /* the buffer's */
                const char *want;
        } cases[] = {
                { "empty", "", 64, "" },
                { "one_line", "one\n", 64, "one" },
                { "trailing_blank_lines", "a\nb\n\n\r\n", 64, "b" },
                { "no_final_newline", "first\nsecond", 64, "second" },
                { "a_long_line_keeps_its_end", "x\n0123456789\n", 8, "456789" },
                { "no_room", "only\n", 1, "" },
        };
        for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
                char buf[64] = "unset";
                _cleanup_close_ int fd = memfd_create("log", MFD_CLOEXEC);
                const char *text = cases[i].text;
                bool ok = fd >= 0 && tsync_write_all(fd, text, strlen(text)) == 0 && lseek(fd, 1, SEEK_SET) == 1;
                if (ok)
                        tsync_read_last_line(fd, buf, cases[i].size);
                tap_ok(ok && strcmp(buf, cases[i].want) == 0 && lseek(fd, 0, SEEK_CUR) == 1,
                       "test_fileio_last_line_%s: '%s'", cases[i].name, buf);
        }
}

/* tsync_write_over: the same file, its new text, shorter or longer; never
 * through a link, another name, or a file swapped in since it was read. */
static void test_fileio_overwrite_in_place(void)
{
        struct tsync_err err = { 0 };
        char p[256], other[256], sym[256], text[64];
        struct stat was, now;

        at(p, sizeof(p), "over");
        int r = tsync_write_atomic(p, "a longer old text", 17, 0640, false, &err);
        tap_ok(r == 0 && lstat(p, &was) == 0, "test_fileio_over_setup: %d %s", r, err.msg);
        r = tsync_write_over(p, &was, "short", 5, &err);
        tap_ok(r == 0 && stat(p, &now) == 0 && now.st_ino == was.st_ino && now.st_size == 5 &&
                       (now.st_mode & 07777) == 0640 && read_text(p, text, sizeof(text)) == 0 &&
                       strcmp(text, "short") == 0,
               "test_fileio_over_writes_the_same_file_and_cuts_the_old_tail: %d %s", r, err.msg);
        r = tsync_write_over(p, &was, "a text longer than the last", 27, &err);
        tap_ok(r == 0 && read_text(p, text, sizeof(text)) == 0 && strcmp(text, "a text longer than the last") == 0,
               "test_fileio_over_grows_the_file: %d %s", r, err.msg);

        /* Another name would see the new text: nothing is written. */
        at(other, sizeof(other), "over-link");
        r = link(p, other) < 0 ? -errno : tsync_write_over(p, &was, "x", 1, &err);
        tap_ok(r == -EMLINK && read_text(other, text, sizeof(text)) == 0 &&
                       strcmp(text, "a text longer than the last") == 0,
               "test_fileio_over_leaves_a_file_with_another_name_alone: %d", r);
        (void)unlink(other);

        /* A link is not followed, and a file put there since is not the one read. */
        at(sym, sizeof(sym), "over-sym");
        r = symlink(p, sym) < 0 ? -errno : tsync_write_over(sym, &was, "x", 1, &err);
        tap_ok(r == -ELOOP && read_text(p, text, sizeof(text)) == 0 && strcmp(text, "a text longer than the last") == 0,
               "test_fileio_over_refuses_a_symlink: %d", r);
        (void)unlink(sym);
        r = rename(p, other) < 0 ? -errno : tsync_write_atomic(p, "new file", 8, 0640, false, &err);
        if (r == 0)
                r = tsync_write_over(p, &was, "x", 1, &err);
        tap_ok(r == -ESTALE && read_text(p, text, sizeof(text)) == 0 && strcmp(text, "new file") == 0 &&
                       read_text(other, text, sizeof(text)) == 0 && strcmp(text, "a text longer than the last") == 0,
               "test_fileio_over_refuses_a_file_replaced_since_it_was_read: %d %s", r, err.msg);
        (void)unlink(p);
        (void)unlink(other);
}

int main(void)
{
        static void (*const tests[])(void) = {
                test_fileio_new_and_replaced_files,
                test_fileio_strict_refusals,
                test_fileio_outputs,
                test_fileio_pieces,
                test_fileio_private_dir,
                test_fileio_bounded_reads,
                test_fileio_last_line,
                test_fileio_overwrite_in_place,
        };
        return unit_main_in_tmpdir(top, tests, ARRAY_SIZE(tests));
}
