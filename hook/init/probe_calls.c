/* The calls the probe may make (verify_probe.c). The probe makes a call a
 * filter should deny; if the filter is missing, the call executes. So every
 * entry must be harmless when it does execute, in any thread, with or without
 * capabilities, on Linux and on gVisor: a NULL pointer the kernel reads first
 * (EFAULT), fd -1 (EBADF), flags or a command no kernel accepts (EINVAL), a
 * pid that cannot exist (ESRCH), a call that was never implemented (ENOSYS),
 * or a pure query. Nothing here creates a file descriptor, a process, a
 * mapping or a namespace, or changes a setting, even when it succeeds.
 * What each one returns on its own is never assumed: the probe runs it before
 * loading and uses it only if the filter's errno differs from that.
 *
 * The order is the order of preference: calls layer profiles typically deny
 * come first, the never-implemented ones (which default-deny profiles catch)
 * last. Calls the init itself needs after loading (openat, read, execve, wait4,
 * futex, tgkill, ...) are not here: a profile denying them fails anyway. */
#include <sys/syscall.h>

#include "init.h"

#define NEG1 UINT64_MAX /* -1 as a register holds it */
/* clang-format off */
#define CALL(n, ...) {#n, SYS_##n, {__VA_ARGS__}}
/* clang-format on */

const struct init_probe_call init_probe_calls[] = {
#ifdef SYS_mkdir
        CALL(mkdir, 0, 0), /* NULL path: EFAULT */
#endif
        CALL(mkdirat, NEG1, 0, 0),                     /* NULL path: EFAULT */
        CALL(getcwd, 0, 0),                            /* size 0: ERANGE */
        CALL(ptrace, NEG1, 0, 0, 0),                   /* no such request for pid 0: ESRCH */
        CALL(keyctl, NEG1, 0, 0, 0, 0),                /* no such operation */
        CALL(add_key, 0, 0, 0, 0, 0),                  /* NULL type: EFAULT */
        CALL(request_key, 0, 0, 0, 0),                 /* NULL type: EFAULT */
        CALL(bpf, NEG1, 0, 0),                         /* no such command */
        CALL(perf_event_open, 0, 0, NEG1, NEG1, 0),    /* NULL attr: EFAULT */
        CALL(userfaultfd, NEG1),                       /* invalid flags */
        CALL(unshare, NEG1),                           /* unknown flag bits: EINVAL */
        CALL(setns, NEG1, 0),                          /* fd -1: EBADF */
        CALL(mount, 0, 0, 0, 0, 0),                    /* NULL target: EFAULT */
        CALL(umount2, 0, 0),                           /* NULL target: EFAULT */
        CALL(pivot_root, 0, 0),                        /* NULL paths: EFAULT */
        CALL(chroot, 0),                               /* NULL path: EFAULT */
        CALL(open_by_handle_at, NEG1, 0, 0),           /* fd -1, NULL handle */
        CALL(name_to_handle_at, NEG1, 0, 0, 0, 0),     /* NULL path: EFAULT */
        CALL(kcmp, 0, 0, NEG1, 0, 0),                  /* pid 0, no such type */
        CALL(process_vm_readv, 0, 0, 0, 0, 0, NEG1),   /* invalid flags: EINVAL */
        CALL(process_vm_writev, 0, 0, 0, 0, 0, NEG1),  /* invalid flags: EINVAL */
        CALL(io_uring_setup, 0, 0),                    /* 0 entries, NULL params */
        CALL(io_uring_enter, NEG1, 0, 0, 0, 0, 0),     /* fd -1: EBADF */
        CALL(io_uring_register, NEG1, 0, 0, 0),        /* fd -1: EBADF */
        CALL(clone3, 0, 0),                            /* size 0: EINVAL */
        CALL(socket, 40, NEG1, 0),                     /* AF_VSOCK, invalid type: EINVAL */
        CALL(ioctl, NEG1, 0x5412, 0),                  /* TIOCSTI on fd -1: EBADF */
        CALL(syslog, NEG1, 0, 0),                      /* no such action */
        CALL(init_module, 0, 0, 0),                    /* NULL image */
        CALL(finit_module, NEG1, 0, 0),                /* fd -1 */
        CALL(delete_module, 0, 0),                     /* NULL name */
        CALL(kexec_file_load, NEG1, NEG1, 0, 0, NEG1), /* unknown flags: EINVAL */
        CALL(swapon, 0, 0),                            /* NULL path */
        CALL(swapoff, 0),                              /* NULL path */
        CALL(quotactl, 0, 0, 0, 0),                    /* no device */
        CALL(sethostname, 0, NEG1),                    /* negative length: EINVAL */
        CALL(setdomainname, 0, NEG1),                  /* negative length: EINVAL */
        CALL(clock_settime, NEG1, 0),                  /* no such clock, NULL time */
        CALL(adjtimex, 0),                             /* NULL: EFAULT */
        CALL(fanotify_init, NEG1, 0),                  /* invalid flags */
        CALL(fsopen, 0, 0),                            /* NULL name */
        CALL(open_tree, NEG1, 0, 0),                   /* NULL path */
        CALL(move_mount, NEG1, 0, NEG1, 0, 0),         /* NULL paths */
        CALL(mount_setattr, NEG1, 0, 0, 0, 0),         /* NULL path, size 0 */
        CALL(pidfd_open, 0, NEG1),                     /* invalid flags: EINVAL */
        CALL(landlock_create_ruleset, 0, 0, NEG1),     /* invalid flags: EINVAL */
        CALL(memfd_create, 0, 0),                      /* NULL name: EFAULT */
        CALL(pkey_alloc, NEG1, 0),                     /* invalid flags: EINVAL */
        CALL(migrate_pages, NEG1, 0, 0, 0),            /* pid -1: ESRCH */
        CALL(move_pages, NEG1, 0, 0, 0, 0, 0),         /* pid -1, no pages */
        CALL(get_mempolicy, 0, 0, 0, 0, 0),            /* a query */
        CALL(vmsplice, NEG1, 0, 0, 0),                 /* fd -1: EBADF */
        CALL(chdir, 0),                                /* NULL path: EFAULT */
#ifdef SYS_chmod
        CALL(chmod, 0, 0),
        CALL(chown, 0, 0, 0),
        CALL(unlink, 0),
        CALL(rmdir, 0),
        CALL(rename, 0, 0),
        CALL(link, 0, 0),
        CALL(symlink, 0, 0),
        CALL(mknod, 0, 0, 0),
#endif
        CALL(fchmodat, NEG1, 0, 0), /* NULL path: EFAULT */
        CALL(fchownat, NEG1, 0, 0, 0, 0),
        CALL(unlinkat, NEG1, 0, 0),
        CALL(renameat2, NEG1, 0, NEG1, 0, 0),
        CALL(linkat, NEG1, 0, NEG1, 0, 0),
        CALL(symlinkat, 0, NEG1, 0),
        CALL(mknodat, NEG1, 0, 0, 0),
        CALL(truncate, 0, 0),
        CALL(setxattr, 0, 0, 0, 0, 0),
        CALL(removexattr, 0, 0),
        CALL(personality, 0xffffffff), /* a query: changes nothing */
#ifdef SYS_iopl
        CALL(iopl, 4), /* level above 3: EINVAL */
#endif
#ifdef SYS_ustat
        CALL(ustat, 0, 0),
#endif
#ifdef SYS_sysfs
        CALL(sysfs, NEG1, 0, 0), /* no such option */
#endif
#ifdef SYS_uselib
        CALL(uselib, 0),
#endif
/* Never implemented (ENOSYS on every kernel) */
#ifdef SYS_nfsservctl
        CALL(nfsservctl, 0, 0, 0),
#endif
#ifdef SYS_afs_syscall
        CALL(afs_syscall, 0),
        CALL(tuxcall, 0),
        CALL(security, 0),
        CALL(getpmsg, 0),
        CALL(putpmsg, 0),
        CALL(vserver, 0),
#endif
#ifdef SYS_create_module
        CALL(create_module, 0, 0),
        CALL(get_kernel_syms, 0),
        CALL(query_module, 0, 0, 0, 0, 0),
#endif
};

const size_t init_probe_ncalls = sizeof(init_probe_calls) / sizeof(init_probe_calls[0]);
