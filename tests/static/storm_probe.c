/* A workload whose tasks never stop changing, for `status` under a storm:
 * SPAWNERS threads keep creating and joining short-lived threads, and the
 * main thread keeps forking children that exit at once, until the process
 * is killed. Every new task inherits its creator's filters, so a reader of
 * /proc must see each task it finds carry them all, and must cope with tasks
 * that end while it reads them.
 *   storm_probe [SPAWNERS]   (default 4)
 * Static (it runs in any root filesystem). */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "probe.h"

int main(int argc, char **argv)
{
        int n = argc > 1 ? atoi(argv[1]) : 4;
        for (int i = 0; i < n; i++) {
                pthread_t t;
                if (pthread_create(&t, NULL, probe_thread_storm, NULL) != 0) {
                        perror("storm_probe: pthread_create");
                        return 1;
                }
        }
        printf("storm: %d spawners\n", n);
        (void)fflush(stdout);
        for (;;) {
                pid_t pid = fork();
                if (pid == 0)
                        _exit(0);
                if (pid > 0)
                        (void)waitpid(pid, NULL, 0);
                usleep(1000);
        }
}
