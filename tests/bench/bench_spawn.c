/* bench_spawn [-n N] [-w W] CMD [--- CMD ...]: how long programs take from
 * spawn to exit, as a hook's runtime sees it. CMD is [-i FILE] PROGRAM ARGS...
 * (stdin from FILE, opened afresh for each run, else /dev/null; stdout goes to
 * /dev/null, stderr stays). Each of W untimed and N timed rounds runs every
 * CMD once, in order, so CMDs that undo each other (a createRuntime and its
 * poststop) alternate as a runtime runs them. Prints one line a round: each
 * CMD's wall time in ms, tab-separated. A benchmark, not a test: it fails
 * (exit 1) only when a CMD fails, since the figures would then be wrong.
 *
 * The process that runs the hooks is this one: copied under the name of a
 * runtime (runc), it is the parent a hook stage asks for. */
#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bench_common.h"

#define PROG     "bench_spawn"
#define MAX_CMDS 16

extern char **environ;

struct cmd {
        const char *stdin_path;
        char **argv;
};

static int usage(void)
{
        fprintf(stderr, "Usage: %s [-n N] [-w W] [-i FILE] PROGRAM ARGS... [--- [-i FILE] PROGRAM ARGS...]...\n", PROG);
        return 2;
}

/* One run of c: its wall time in ms, or a negative number after saying why. */
static double run(const struct cmd *c)
{
        posix_spawn_file_actions_t fa;
        pid_t pid;
        int status, r;

        if (posix_spawn_file_actions_init(&fa) != 0 ||
            posix_spawn_file_actions_addopen(&fa, 0, c->stdin_path ? c->stdin_path : "/dev/null", O_RDONLY, 0) != 0 ||
            posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0) != 0) {
                fprintf(stderr, "%s: posix_spawn_file_actions: out of memory\n", PROG);
                return -1;
        }
        double t0 = bench_now_ms();
        r = posix_spawn(&pid, c->argv[0], &fa, NULL, c->argv, environ);
        (void)posix_spawn_file_actions_destroy(&fa);
        if (r != 0) {
                fprintf(stderr, "%s: %s: %s\n", PROG, c->argv[0], strerror(r));
                return -1;
        }
        while (waitpid(pid, &status, 0) < 0)
                if (errno != EINTR) {
                        fprintf(stderr, "%s: waitpid: %s\n", PROG, strerror(errno));
                        return -1;
                }
        double t1 = bench_now_ms();
        if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
                fprintf(stderr, "%s: %s %s failed (status %#x)\n", PROG, c->argv[0], c->argv[1] ? c->argv[1] : "",
                        status);
                return -1;
        }
        return t1 - t0;
}

int main(int argc, char **argv)
{
        struct cmd cmds[MAX_CMDS];
        size_t n_cmds = 0;
        long rounds = 100, warmup = 3;
        int i = 1;

        for (; i + 1 < argc && argv[i][0] == '-' && argv[i][1] != 'i'; i += 2) {
                char *end;
                long v = strtol(argv[i + 1], &end, 10);
                if (*end || v < 0)
                        return usage();
                if (strcmp(argv[i], "-n") == 0 && v > 0)
                        rounds = v;
                else if (strcmp(argv[i], "-w") == 0)
                        warmup = v;
                else
                        return usage();
        }
        while (i < argc) {
                if (n_cmds == MAX_CMDS)
                        return usage();
                struct cmd *c = &cmds[n_cmds++];
                c->stdin_path = NULL;
                if (strcmp(argv[i], "-i") == 0) {
                        if (i + 1 >= argc)
                                return usage();
                        c->stdin_path = argv[i + 1];
                        i += 2;
                }
                if (i >= argc || strcmp(argv[i], "---") == 0)
                        return usage();
                c->argv = &argv[i];
                while (i < argc && strcmp(argv[i], "---") != 0)
                        i++;
                if (i < argc)
                        argv[i++] = NULL; /* ends this CMD's argv */
        }
        if (n_cmds == 0)
                return usage();

        for (long round = 0; round < warmup + rounds; round++) {
                char line[MAX_CMDS * 16] = "";
                size_t len = 0;
                for (size_t k = 0; k < n_cmds; k++) {
                        double ms = run(&cmds[k]);
                        if (ms < 0)
                                return 1;
                        len += (size_t)snprintf(line + len, sizeof(line) - len, "%s%.3f", k ? "\t" : "", ms);
                }
                if (round >= warmup)
                        printf("%s\n", line);
        }
        return fflush(stdout) == 0 ? 0 : 1;
}
