/* Capabilities by the kernel's own interface (shared/cap_kernel.h). A raw
 * syscall for capget/capset, as libcap without libpsx makes them: they act on
 * the calling thread only, which is what the init wants (it makes every
 * thread's transition on that thread; hook/init/privs.c). Neither glibc nor
 * musl broadcasts them to other threads. */
#include "shared/cap_kernel.h"

#include <errno.h>
#include <linux/capability.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

/* Where each set lives in capget's two 32-bit words (capsets.h's capword). */
static uint64_t word_get(const struct __user_cap_data_struct d[2], enum tsync_capword w)
{
        switch (w) {
        case TSYNC_CAPWORD_EFFECTIVE:
                return d[0].effective | (uint64_t)d[1].effective << 32;
        case TSYNC_CAPWORD_PERMITTED:
                return d[0].permitted | (uint64_t)d[1].permitted << 32;
        case TSYNC_CAPWORD_INHERITABLE:
                return d[0].inheritable | (uint64_t)d[1].inheritable << 32;
        case TSYNC_CAPWORD_NONE:
                break;
        }
        return 0;
}

static uint64_t mask_upto(int last)
{
        return last >= 63 ? UINT64_MAX : (UINT64_C(1) << (last + 1)) - 1;
}

int tsync_cap_kernel_last(int *ret_last)
{
        /* Probed, not read from /proc/sys/kernel/cap_last_cap: the same answer
         * without a file, in a root filesystem that may have no /proc mounted
         * yet, and the answer libcap gave the init before (cap_max_bits). The
         * kernel reads every capability up to its last and refuses each above
         * with EINVAL: so halving, 7 calls where counting up took 42 (the
         * runtime wrapper asks twice a start). */
        if (prctl(PR_CAPBSET_READ, 0, 0, 0, 0) < 0)
                return errno == EINVAL ? -EINVAL : -errno; /* not even CAP_CHOWN: no kernel we know */
        /* known: a capability read; above: one refused, or past what we look at. */
        int known = 0, above = 64;
        while (above - known > 1) {
                int c = known + (above - known) / 2;
                if (prctl(PR_CAPBSET_READ, c, 0, 0, 0) >= 0)
                        known = c;
                else if (errno == EINVAL)
                        above = c;
                else
                        return -errno;
        }
        *ret_last = known;
        return 0;
}

int tsync_cap_kernel_read(int last, uint64_t ret_sets[TSYNC_CAPSET_COUNT], bool *ret_no_ambient)
{
        struct __user_cap_header_struct hdr = { .version = _LINUX_CAPABILITY_VERSION_3, .pid = 0 };
        struct __user_cap_data_struct d[_LINUX_CAPABILITY_U32S_3] = { 0 };
        uint64_t sets[TSYNC_CAPSET_COUNT] = { 0 };
        bool no_ambient;

        if (syscall(SYS_capget, &hdr, d) < 0)
                return -errno;
        for (int s = 0; s < TSYNC_CAPSET_COUNT; s++)
                sets[s] = word_get(d, tsync_capset(s)->capword) & mask_upto(last);
        no_ambient = prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_IS_SET, 0, 0, 0) < 0 && errno == EINVAL;
        for (int i = 0; i <= last && i < 64; i++) {
                int b = prctl(PR_CAPBSET_READ, i, 0, 0, 0);
                if (b < 0)
                        return -errno;
                if (b > 0)
                        sets[TSYNC_CAPSET_BOUNDING] |= UINT64_C(1) << i;
                if (no_ambient)
                        continue;
                int a = prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_IS_SET, i, 0, 0);
                if (a < 0)
                        return -errno;
                if (a > 0)
                        sets[TSYNC_CAPSET_AMBIENT] |= UINT64_C(1) << i;
        }
        for (int s = 0; s < TSYNC_CAPSET_COUNT; s++)
                ret_sets[s] = sets[s];
        *ret_no_ambient = no_ambient;
        return 0;
}

int tsync_cap_kernel_set(const uint64_t sets[TSYNC_CAPSET_COUNT])
{
        struct __user_cap_header_struct hdr = { .version = _LINUX_CAPABILITY_VERSION_3, .pid = 0 };
        struct __user_cap_data_struct d[_LINUX_CAPABILITY_U32S_3] = { 0 };

        for (int s = 0; s < TSYNC_CAPSET_COUNT; s++) {
                uint64_t m = sets[s];
                switch (tsync_capset(s)->capword) {
                case TSYNC_CAPWORD_EFFECTIVE:
                        d[0].effective = (uint32_t)m, d[1].effective = (uint32_t)(m >> 32);
                        break;
                case TSYNC_CAPWORD_PERMITTED:
                        d[0].permitted = (uint32_t)m, d[1].permitted = (uint32_t)(m >> 32);
                        break;
                case TSYNC_CAPWORD_INHERITABLE:
                        d[0].inheritable = (uint32_t)m, d[1].inheritable = (uint32_t)(m >> 32);
                        break;
                case TSYNC_CAPWORD_NONE:
                        break;
                }
        }
        if (syscall(SYS_capset, &hdr, d) < 0)
                return -errno;
        return 0;
}
