/* Linked into every unit test. Under qemu-user (tests/run_tests.py --run-with, scons arch=ARCH
 * check-unit), seccomp() answers ENOSYS: libseccomp would then judge the kernel to have no seccomp
 * and refuse every action past the first API level (KILL_PROCESS, LOG, NOTIFY...). The runner names
 * the API level of the kernel qemu-user runs on, this host's, in TSYNC_TEST_SECCOMP_API, and the
 * tests compile for it as they would on that kernel natively. The tests that load a filter into the
 * kernel cannot pass there: tests/unit/qemu-user.excluded names them. Unset (a native run): nothing. */
#include <seccomp.h>
#include <stdio.h>
#include <stdlib.h>

static void __attribute__((constructor)) emulated_seccomp_api(void)
{
        const char *level = getenv("TSYNC_TEST_SECCOMP_API");
        if (!level || !*level)
                return;
        char *end;
        unsigned long v = strtoul(level, &end, 10);
        if (*end || seccomp_api_set((unsigned int)v) < 0) {
                fprintf(stderr, "TSYNC_TEST_SECCOMP_API=%s: not an API level this libseccomp knows\n", level);
                exit(2);
        }
}
