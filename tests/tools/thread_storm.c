/* The init's TSYNC core under a thread storm: SPAWNERS threads keep creating
 * and joining short-lived threads while the main thread takes a census, loads
 * the filter with TSYNC and verifies every task in /proc/self/task, ROUNDS
 * times (each round stacks the filter once more).
 *   thread_storm [--spawners N] [--rounds N] [--errno E] FILTER
 * FILTER must make mkdirat fail with errno E. Besides the /proc verification,
 * every thread that starts after a round's load returned checks itself: mode 2
 * (PR_GET_SECCOMP) and mkdirat failing with E; any thread that does not is a
 * miss. Prints one summary line; exits 0 only with 0 misses and every round
 * verified. */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "../../hook/init/apply.h"
#include "shared/filterfile.h"

#define MAX_SPAWNERS 1024
#define BATCH        4

static atomic_int loaded; /* rounds whose load has returned */
static atomic_bool stop;
static atomic_long created, checked, misses;
static int expect_errno;
static struct init_census census;
static uint64_t file[(TSYNC_FILTER_MAX_SIZE + 8) / 8];

static void self_check(void)
{
        int k = atomic_load(&loaded);
        if (k == 0)
                return;
        int mode = prctl(PR_GET_SECCOMP, 0, 0, 0, 0);
        int r = mkdirat(AT_FDCWD, "/nonexistent-tsync-storm/x", 0700);
        int e = errno;
        atomic_fetch_add(&checked, 1);
        if (mode != 2 || r != -1 || e != expect_errno) {
                if (atomic_fetch_add(&misses, 1) < 5)
                        fprintf(stderr, "thread_storm: miss: tid %d after round %d: mode %d, mkdirat %d errno %d\n",
                                (int)gettid(), k, mode, r, e);
        }
}

static void *leaf(void *arg)
{
        (void)arg;
        self_check();
        return NULL;
}

static void *spawner(void *arg)
{
        (void)arg;
        while (!atomic_load(&stop)) {
                pthread_t t[BATCH];
                int n = 0;
                for (; n < BATCH; n++) {
                        if (pthread_create(&t[n], NULL, leaf, NULL) != 0)
                                break;
                        atomic_fetch_add(&created, 1);
                }
                for (int i = 0; i < n; i++)
                        (void)pthread_join(t[i], NULL);
                self_check();
        }
        return NULL;
}

static void sleep_ms(long ms)
{
        struct timespec ts = { .tv_sec = ms / 1000, .tv_nsec = (ms % 1000) * 1000000L };
        while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
                ;
}

static int read_filter(const char *path, const struct sock_filter **prog, size_t *len, uint32_t *flags)
{
        const char *why = "?";
        size_t size = 0;
        ssize_t n;
        int fd = open(path, O_RDONLY | O_CLOEXEC);

        if (fd < 0) {
                fprintf(stderr, "thread_storm: %s: %s\n", path, strerror(errno));
                return -1;
        }
        while ((n = read(fd, (char *)file + size, sizeof(file) - size)) > 0)
                size += (size_t)n;
        (void)close(fd);
        if (tsync_filter_decode(file, size, prog, len, flags, NULL, &why) < 0) {
                fprintf(stderr, "thread_storm: %s: %s\n", path, why);
                return -1;
        }
        return 0;
}

int main(int argc, char **argv)
{
        static pthread_t threads[MAX_SPAWNERS];
        int spawners = 64, rounds = 4, i;
        const struct sock_filter *prog;
        size_t len;
        uint32_t flags;

        expect_errno = 71;
        for (i = 1; i + 1 < argc && argv[i][0] == '-'; i += 2) {
                if (strcmp(argv[i], "--spawners") == 0)
                        spawners = atoi(argv[i + 1]);
                else if (strcmp(argv[i], "--rounds") == 0)
                        rounds = atoi(argv[i + 1]);
                else if (strcmp(argv[i], "--errno") == 0)
                        expect_errno = atoi(argv[i + 1]);
                else
                        break;
        }
        if (i != argc - 1 || spawners < 1 || spawners > MAX_SPAWNERS || rounds < 1) {
                fprintf(stderr, "usage: thread_storm [--spawners N] [--rounds N] [--errno E] FILTER\n");
                return 2;
        }
        if (read_filter(argv[i], &prog, &len, &flags) < 0)
                return 2;

        for (int s = 0; s < spawners; s++) {
                if (pthread_create(&threads[s], NULL, spawner, NULL) != 0) {
                        fprintf(stderr, "thread_storm: cannot start spawner %d\n", s);
                        return 2;
                }
        }
        /* Let the storm build up before the first load. */
        while (atomic_load(&created) < 20L * spawners)
                sleep_ms(1);

        int failed = 0;
        size_t vchecked = 0, vexited = 0, vappeared = 0, census_max = 0;
        for (int r = 1; r <= rounds && !failed; r++) {
                struct tsync_err err = { 0 };
                struct init_verify_result res;
                if (init_apply_census(&census, &err) < 0 || init_apply_load(prog, len, flags, &err) < 0) {
                        fprintf(stderr, "thread_storm: round %d: %s\n", r, err.msg);
                        failed = 1;
                        break;
                }
                atomic_store(&loaded, r);
                if (census.len > census_max)
                        census_max = census.len;
                if (init_apply_verify(&census, 1, &res, &err) < 0) {
                        fprintf(stderr, "thread_storm: round %d: verify: %s\n", r, err.msg);
                        failed = 1;
                        break;
                }
                vchecked += res.checked;
                vexited += res.exited;
                vappeared += res.appeared;
                sleep_ms(50);
        }
        atomic_store(&stop, true);
        for (int s = 0; s < spawners; s++)
                (void)pthread_join(threads[s], NULL);

        printf("thread_storm: spawners=%d rounds=%d created=%ld census_max=%zu verified=%zu appeared=%zu exited=%zu "
               "self_checked=%ld misses=%ld\n",
               spawners, rounds, atomic_load(&created), census_max, vchecked, vappeared, vexited, atomic_load(&checked),
               atomic_load(&misses));
        if (failed || atomic_load(&misses) != 0 || atomic_load(&checked) == 0)
                return 1;
        return 0;
}
