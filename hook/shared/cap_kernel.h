/* The kernel's capability interface, without libcap: capget/capset (version 3,
 * the calling thread only), PR_CAPBSET_READ, PR_CAP_AMBIENT_IS_SET. The static
 * init reads and sets its capabilities with it, so that it links libc alone
 * (and any libc: glibc or musl). No heap, no printing; 0 or -errno. */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "shared/capsets.h"

/* The kernel's last capability: PR_CAPBSET_READ of 0, 1, ... until the first
 * EINVAL (as libcap's cap_max_bits finds it), capped at 63. Any other failure
 * is -errno: nothing below could be read either. */
int tsync_cap_kernel_last(int *ret_last);

/* All five sets of the calling thread, by enum tsync_capset, capabilities 0..last
 * only. *ret_no_ambient: the kernel has no ambient set (gVisor: PR_CAP_AMBIENT is
 * EINVAL), which is then read as empty. -errno if capget or a prctl fails. */
int tsync_cap_kernel_read(int last, uint64_t ret_sets[TSYNC_CAPSET_COUNT], bool *ret_no_ambient);

/* capset of the calling thread's effective, inheritable and permitted sets to
 * those of sets[] (the others are ignored). -errno as capset(2). */
int tsync_cap_kernel_set(const uint64_t sets[TSYNC_CAPSET_COUNT]);
