/* unix_probe DIR...: a workload looking for UNIX sockets it could use, for
 * test_notify.sh (issue 23: no socket of the host in the container). Walks
 * each DIR (without following symbolic links); for every socket found prints
 * "socket PATH connect=ok|errno:N", and last "sockets=N". Static (it runs in
 * a busybox root filesystem). Exits 0 unless the walk itself fails. */
#define _XOPEN_SOURCE 700
#include <errno.h>
#include <ftw.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

static int found;

static int visit(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
        (void)type;
        (void)ftw;
        if (!S_ISSOCK(st->st_mode))
                return 0;
        found++;
        struct sockaddr_un addr = { .sun_family = AF_UNIX };
        (void)snprintf(addr.sun_path, sizeof(addr.sun_path), "%s", path);
        int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
        if (fd >= 0 && connect(fd, (struct sockaddr *)&addr, sizeof(addr)) == 0)
                printf("socket %s connect=ok\n", path);
        else
                printf("socket %s connect=errno:%d\n", path, errno);
        if (fd >= 0)
                close(fd);
        return 0;
}

int main(int argc, char **argv)
{
        for (int i = 1; i < argc; i++)
                if (nftw(argv[i], visit, 16, FTW_PHYS) < 0)
                        printf("walk %s errno:%d\n", argv[i], errno);
        printf("sockets=%d\n", found);
        return 0;
}
