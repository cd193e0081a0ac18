/* The host's half of a recording (record/record_file.h): what the user asked for
 * (annotation or inject's options), the plan's part of it, the directory the
 * recording leaves the container through, and what a recording refuses.
 *
 * A planned recording adds one filter to the plan, the last: the recording
 * filter (every call of every ABI the machine runs returns USER_NOTIF, marked
 * TSYNC_LISTENER_RECORD). Nothing of the host is mounted for it (issue 23):
 * the recording's directory is root's (0700), createRuntime's relay creates
 * TSYNC_RECORD_CALLS there and hands the init its fd (the rewrite mounts the
 * relay's tmpfs and passes `--relay`). The poststop stage turns the file into
 * the profile at the user's path. */
#pragma once

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "record/record_file.h"
#include "shared/error.h"
#include "util/json.h"

/* inject's directory for the recording: BUNDLE/TSYNC_BUNDLE_RECORD, kept for
 * the bundle's next run (emptied at poststop). */
#define TSYNC_BUNDLE_RECORD "oci-seccomp-tsync-record"
/* precreate's: RECORD_ROOT/<32 hex digits>, one per container, removed at poststop. */
#define TSYNC_RECORD_ROOT "/var/lib/oci-seccomp-tsync/record"

/* The plan's recording: the request (output NULL: none) and where on the host
 * the recording leaves the container. */
struct tsync_plan_record {
        struct tsync_record_request req;
        char *dir;
        /* The output may not exist when the recording is prepared or
         * written (TSYNC_RECORD_NEW): the runtime wrapper's, whose pods name
         * files in the node's record-dir ("noReplace" in the plan). */
        bool no_replace;
};

/* Frees what r holds (NULL members are fine) and zeroes it. */
void tsync_record_request_clear(struct tsync_record_request *r);
/* A deep copy of src into *ret (zeroed first). */
int tsync_record_request_copy(const struct tsync_record_request *src, struct tsync_record_request *ret,
                              struct tsync_err *err);

/* "EPERM" or "ENOSYS" (the two a recording's defaultErrnoRet may be). */
int tsync_record_errno_parse(const char *s, int *ret);
const char *tsync_record_errno_name(int e);
/* "oci" or "docker". */
int tsync_record_format_parse(const char *s, enum tsync_record_format *ret);
const char *tsync_record_format_name(enum tsync_record_format f);

/* Parses the annotation's value, "[if:IN;]of:OUT[;format:oci|docker][;errno:EPERM|ENOSYS]",
 * strictly: every part a known key, each key once, of: present, paths
 * absolute. *ret is zeroed first and left empty on failure. */
int tsync_record_request_parse(const char *value, struct tsync_record_request *ret, struct tsync_err *err);

/* The request the config's TSYNC_ANNOTATION_RECORD makes (ret->output NULL
 * when the config has none). */
int tsync_record_request_from_config(const struct tsync_json *config, struct tsync_record_request *ret,
                                     struct tsync_err *err);

/* Checks a request against what a recording cannot be combined with, before
 * any plan is made: exec once, the in-place route asked for (--exec). */
int tsync_record_check_request(const struct tsync_record_request *req, bool exec, int exec_once, struct tsync_err *err);

/* The container's root filesystem on the host, from root.path (relative to
 * bundle when bundle is not NULL): *ret NULL when it cannot be told (a
 * relative path and no bundle). */
int tsync_record_rootfs(const struct tsync_json *config, const char *bundle, char **ret, struct tsync_err *err);

/* Checks the request's paths for the container whose config this is
 * (tsync_record_check_path: absolute, no symlink, not under the rootfs; the
 * output with flags, TSYNC_RECORD_NEW or 0), and
 * reads and judges the input profile (tsync_record_check_input): said before
 * the workload runs. */
int tsync_record_check_paths(const struct tsync_record_request *req, const struct tsync_json *config,
                             const char *bundle, unsigned flags, struct tsync_err *err);

/* The host uid and gid of the container's process.user (through
 * linux.uidMappings / gidMappings when the config has them). */
int tsync_record_owner(const struct tsync_json *config, uid_t *ret_uid, gid_t *ret_gid, struct tsync_err *err);

/* Makes dir (mode 0700, the hook's user's, parents root's 0700 when missing
 * up to and including parent_root, which may be NULL). An existing dir must
 * be a real directory (not a symlink), the hook's user's, mode 0700
 * (tsync_record_check_dir): -EPERM otherwise. */
int tsync_record_make_dir(const char *dir, const char *parent_root, struct tsync_err *err);
/* That fd (dir in messages) is a directory of the hook's user, mode 0700. */
int tsync_record_check_dir(int fd, const char *dir, struct tsync_err *err);

/* Refuses a recording for a config whose process.capabilities hold
 * CAP_SYS_PTRACE in any of the five sets: the init holds the record file, and
 * ptrace is the one way the workload could reach it (-EPERM, naming the set). */
int tsync_record_check_caps(const struct tsync_json *config, struct tsync_err *err);

/* A fresh directory name for precreate: root/<32 hex digits>. */
int tsync_record_new_dir_name(const char *root, char **ret, struct tsync_err *err);

/* Which of ours rec->dir is: 0 for BUNDLE/TSYNC_BUNDLE_RECORD (bundle may be
 * NULL), 1 for record_root/<token>; -EPERM with a message for anything else. */
int tsync_record_dir_kind(const char *dir, const char *bundle, const char *record_root, int *ret,
                          struct tsync_err *err);

/* The plan's recording as the plan annotation's "record" member; NULL when there is none. */
int tsync_plan_record_to_json(const struct tsync_plan_record *rec, struct tsync_json **ret);
/* Reads the plan's "record" member (v, which may be NULL: no recording). */
int tsync_plan_record_from_json(const struct tsync_json *v, struct tsync_plan_record *ret, struct tsync_err *err);
void tsync_plan_record_clear(struct tsync_plan_record *rec);

struct tsync_plan;

/* Before the config is written: checks the recording's paths for this
 * container (tsync_record_check_paths; bundle NULL for precreate, which has
 * none yet), refuses CAP_SYS_PTRACE (tsync_record_check_caps) and makes
 * plan->record.dir, root's alone (tsync_record_make_dir with parent_root).
 * Nothing to do without a recording. */
int tsync_plan_record_prepare(const struct tsync_plan *plan, const struct tsync_json *config, const char *bundle,
                              const char *parent_root, struct tsync_err *err);
