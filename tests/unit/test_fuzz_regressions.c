/* Every reproducer the fuzzers saved (tests/fuzz/crashes/<target>/) and every seed
 * (tests/fuzz/corpus/<target>/) through the same steps and properties as the fuzz
 * targets, here with the ordinary gcc-built library, so a crash once found stays fixed.
 * Each file runs in a child of its own: a crash or a broken property (abort) fails
 * that file alone, and the child's stderr says which property broke. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tap.h"

/* The steps are shared with the fuzz targets; this test is built from one source file. */
#include "../fuzz/fuzz_steps.c"
#include "../fuzz/fuzz_steps_config.c"
#include "../fuzz/fuzz_steps_exec_view.c"
#include "../fuzz/fuzz_steps_record.c"

static int read_file(const char *path, uint8_t **ret, size_t *ret_len)
{
        int fd = open(path, O_RDONLY | O_CLOEXEC);
        struct stat st;
        if (fd < 0)
                return -errno;
        if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
                (void)close(fd);
                return -EINVAL;
        }
        uint8_t *buf = malloc((size_t)st.st_size + 1);
        size_t len = 0;
        while (buf && len < (size_t)st.st_size) {
                ssize_t n = read(fd, buf + len, (size_t)st.st_size - len);
                if (n <= 0)
                        break;
                len += (size_t)n;
        }
        (void)close(fd);
        if (!buf || len != (size_t)st.st_size) {
                free(buf);
                return -EIO;
        }
        *ret = buf;
        *ret_len = len;
        return 0;
}

static bool run_one(const struct fuzz_target *t, const char *path)
{
        uint8_t *data = NULL;
        size_t len = 0;
        if (read_file(path, &data, &len) < 0) {
                tap_diag("cannot read %s", path);
                return false;
        }
        fflush(stdout);
        pid_t pid = fork();
        if (pid == 0) {
                /* The exact size, as libFuzzer hands it over, so an overrun is seen by the sanitizers. */
                uint8_t *exact = malloc(len ? len : 1);
                if (!exact)
                        _exit(2);
                memcpy(exact, data, len);
                t->run(exact, len);
                free(exact);
                free(data);
                _exit(0);
        }
        free(data);
        int status = 0;
        if (pid < 0 || waitpid(pid, &status, 0) != pid)
                return false;
        if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
                tap_diag("%s: child status %#x", path, (unsigned)status);
        return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

static int skip_dots(const struct dirent *d)
{
        return d->d_name[0] != '.' && strcmp(d->d_name, "README.md") != 0;
}

/* Runs every file of dir/<target>/; returns how many there were. */
static size_t run_dir(const char *top, const char *dir, const struct fuzz_target *t)
{
        char path[4096];
        struct dirent **names = NULL;
        (void)snprintf(path, sizeof(path), "%s/tests/fuzz/%s/%s", top, dir, t->name);
        int n = scandir(path, &names, skip_dots, alphasort);
        if (n < 0)
                return 0;
        for (int i = 0; i < n; i++) {
                char file[4096 + 256];
                (void)snprintf(file, sizeof(file), "%s/%s", path, names[i]->d_name);
                tap_ok(run_one(t, file), "test_fuzz_regressions_%s_%s_%s", dir, t->name, names[i]->d_name);
                free(names[i]);
        }
        free(names);
        return (size_t)n;
}

int main(void)
{
        const char *top = getenv("TSYNC_TOP") ? getenv("TSYNC_TOP") : ".";

        /* The profile steps load each program into the kernel, unless seccomp(2)
         * cannot be used here at all (valgrind does not emulate it). */
        struct sock_filter allow = BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
        int e = fuzz_kernel_load(&allow, 1, 0);
        fuzz_kernel_mode = e == 0 ? FUZZ_KERNEL_ALWAYS : FUZZ_KERNEL_OFF;
        if (e != 0)
                tap_diag("seccomp(2) refuses even an ALLOW filter here (%s): programs are not loaded into the kernel",
                         e > 0 ? strerror(e) : "no answer");

        size_t seeds = 0;
        for (size_t i = 0; i < fuzz_n_targets; i++) {
                size_t crashes = run_dir(top, "crashes", &fuzz_targets[i]);
                size_t corpus = run_dir(top, "corpus", &fuzz_targets[i]);
                tap_diag("%s: %zu reproducers, %zu seeds", fuzz_targets[i].name, crashes, corpus);
                seeds += corpus;
        }
        tap_ok(seeds > 0, "test_fuzz_regressions_found_the_seed_corpus (in %s/tests/fuzz/corpus)", top);
        return tap_done();
}
