#include "shared/capnames.h"

#include <linux/capability.h>
#include <string.h>

#ifndef CAP_PERFMON
#define CAP_PERFMON 38
#endif
#ifndef CAP_BPF
#define CAP_BPF 39
#endif
#ifndef CAP_CHECKPOINT_RESTORE
#define CAP_CHECKPOINT_RESTORE 40
#endif

/* [CAP_CHOWN] = "CAP_CHOWN": the kernel header numbers them. */
#define NAME(c) [c] = #c
static const char *const names[TSYNC_CAPNAME_LAST + 1] = {
        NAME(CAP_CHOWN),
        NAME(CAP_DAC_OVERRIDE),
        NAME(CAP_DAC_READ_SEARCH),
        NAME(CAP_FOWNER),
        NAME(CAP_FSETID),
        NAME(CAP_KILL),
        NAME(CAP_SETGID),
        NAME(CAP_SETUID),
        NAME(CAP_SETPCAP),
        NAME(CAP_LINUX_IMMUTABLE),
        NAME(CAP_NET_BIND_SERVICE),
        NAME(CAP_NET_BROADCAST),
        NAME(CAP_NET_ADMIN),
        NAME(CAP_NET_RAW),
        NAME(CAP_IPC_LOCK),
        NAME(CAP_IPC_OWNER),
        NAME(CAP_SYS_MODULE),
        NAME(CAP_SYS_RAWIO),
        NAME(CAP_SYS_CHROOT),
        NAME(CAP_SYS_PTRACE),
        NAME(CAP_SYS_PACCT),
        NAME(CAP_SYS_ADMIN),
        NAME(CAP_SYS_BOOT),
        NAME(CAP_SYS_NICE),
        NAME(CAP_SYS_RESOURCE),
        NAME(CAP_SYS_TIME),
        NAME(CAP_SYS_TTY_CONFIG),
        NAME(CAP_MKNOD),
        NAME(CAP_LEASE),
        NAME(CAP_AUDIT_WRITE),
        NAME(CAP_AUDIT_CONTROL),
        NAME(CAP_SETFCAP),
        NAME(CAP_MAC_OVERRIDE),
        NAME(CAP_MAC_ADMIN),
        NAME(CAP_SYSLOG),
        NAME(CAP_WAKE_ALARM),
        NAME(CAP_BLOCK_SUSPEND),
        NAME(CAP_AUDIT_READ),
        NAME(CAP_PERFMON),
        NAME(CAP_BPF),
        NAME(CAP_CHECKPOINT_RESTORE),
};
#undef NAME

const char *tsync_capname(unsigned cap)
{
        return cap <= TSYNC_CAPNAME_LAST ? names[cap] : NULL;
}

int tsync_capname_lookup(const char *name, size_t len)
{
        /* Every name starts with "CAP_": anything else is over before the loop. */
        if (len < 5 || memcmp(name, "CAP_", 4) != 0)
                return -1;
        for (unsigned c = 0; c <= TSYNC_CAPNAME_LAST; c++)
                if (strlen(names[c]) == len && memcmp(names[c], name, len) == 0)
                        return (int)c;
        return -1;
}
