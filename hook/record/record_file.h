/* Recording on the host: the request, the record file's reader and the profile
 * made from it (the file's format and the why: shared/record_format.h). */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "shared/error.h"
#include "shared/record_format.h"

/* The annotation TSYNC_ANNOTATION_RECORD (annotations.h), with
 * oci-seccomp-bpf-hook's conventions: "[if:IN;]of:OUT" (IN, any profile,
 * is the output's base, a previous recording merged by name: record_merge.c;
 * both absolute host paths). */
#include "facts/annotations.h"

/* Where an older rewrite bind-mounted the recording's host directory: no
 * more (issue 23), and createRuntime refuses a config that still does. */
#define TSYNC_CONTAINER_RECORD_DIR "/.oci-seccomp-tsync/record"
/* The record file's name in the recording's directory on the host (root's,
 * 0700): createRuntime's relay creates it and hands the init its fd. */
#define TSYNC_RECORD_CALLS "calls"

/* poststop reads no more than this: a workload can write to the file too. */
#define TSYNC_RECORD_MAX_BYTES (1u << 20)

enum tsync_record_format {
        TSYNC_RECORD_FORMAT_OCI,    /* linux.seccomp's shape */
        TSYNC_RECORD_FORMAT_DOCKER, /* Docker's, the ABIs in archMap (includes.arches compares the host's) */
};

/* What the user asked for; output NULL means no recording. */
struct tsync_record_request {
        char *output; /* absolute host path the profile is written to */
        char *input;  /* NULL, or the profile the output starts from (if:) */
        enum tsync_record_format format;
        int errno_ret; /* the profile's defaultErrnoRet: EPERM (default) or ENOSYS */
};

/* A set of recorded (AUDIT_ARCH, nr) pairs. */
struct tsync_record_set;

void tsync_record_set_free(struct tsync_record_set *set);
static inline void tsync_record_set_freep(struct tsync_record_set **set)
{
        tsync_record_set_free(*set);
}
#define _cleanup_record_set_ __attribute__((cleanup(tsync_record_set_freep)))

/* Parses a record file's text strictly (the magic line, then lines as above,
 * every ABI one this machine's libseccomp knows). */
int tsync_record_parse(const char *text, size_t len, struct tsync_record_set **ret, struct tsync_err *err);

/* The profile for set (merged with req->input when set), as stable text: the
 * same set gives the same bytes. */
int tsync_record_profile(const struct tsync_record_set *set, const struct tsync_record_request *req, char **ret,
                         size_t *ret_len, struct tsync_err *err);

enum {
        TSYNC_RECORD_OUTPUT = 1 << 0, /* the path is written (else read: it must exist) */
        /* Nothing may be at the path (the runtime wrapper's record-dir, whose
         * files a pod names: an earlier one is never replaced, docs/recording.md):
         * refused with -EEXIST when anything is there, or appears there
         * before the write takes the name. */
        TSYNC_RECORD_NEW = 1 << 1,
};

/* Refuses an output (or input) path that is relative, a symlink (at any
 * component), or under rootfs (NULL: not checked), and with TSYNC_RECORD_NEW
 * one where anything exists: said before the workload runs, and again when
 * poststop writes. flags: TSYNC_RECORD_*. */
int tsync_record_check_path(const char *path, unsigned flags, const char *rootfs, struct tsync_err *err);

/* Judges req->input (`if:`) before anything starts: read, parsed and checked
 * as tsync_record_profile will at poststop (what it refuses, record_merge.c).
 * 0 without an input. Errors name the file. */
int tsync_record_check_input(const struct tsync_record_request *req, struct tsync_err *err);

/* Writes text to path atomically (a temporary file in the same directory,
 * fsync, rename), refusing what tsync_record_check_path refuses for flags
 * (TSYNC_RECORD_OUTPUT is implied). With TSYNC_RECORD_NEW the new file takes
 * the name only where none exists (a link that fails on an existing name,
 * never a rename over it), so a file raced into place is never replaced. */
int tsync_record_write(const char *path, const char *text, size_t len, const char *rootfs, unsigned flags,
                       struct tsync_err *err);

/* The recorded calls libseccomp has no name for (newer than it, or
 * syscall(-1)), as "SCMP_ARCH_X86_64 462, SCMP_ARCH_X32 4294967295" in *ret,
 * or NULL when there are none. A profile lists names, so tsync_record_profile
 * leaves them out (denied); only the Docker format's comment says so, and
 * this is for a warning. */
int tsync_record_unnamed(const struct tsync_record_set *set, char **ret, struct tsync_err *err);
