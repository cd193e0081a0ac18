/* Where a recording may be written, against the directories whose files we
 * trust (hook/plan/record_place.c): the profile directories layers are
 * resolved from, the cache of compiled filters, the record root where raw
 * recordings wait, the state root. A recording written into one of them
 * would be trusted as ours: a pod's allow-list read back as a node layer.
 *
 * Two directories overlap when one is the other, holds it or lies inside it.
 * Each is compared twice: by its path (symbolic links resolved as far as the
 * path exists, the rest read as written), and by the device and inode of each
 * directory from the deepest one that exists up to "/" (walked by ".."), so
 * that neither a symbolic link nor a bind mount hides an overlap, and a
 * directory that does not exist yet is judged by where it would be made. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "shared/error.h"

struct tsync_plan_paths;

#ifndef TSYNC_PREFIX
#define TSYNC_PREFIX "/usr/local"
#endif
/* The system's profile directories, where layers named without a profile
 * directory of the caller's are resolved (hook/frontend/paths.c's
 * frontend_default_profile_dirs): a place for every front end. */
#define TSYNC_PROFILE_DIR_ETC   "/etc/oci-seccomp-tsync/profiles"
#define TSYNC_PROFILE_DIR_SHARE TSYNC_PREFIX "/share/oci-seccomp-tsync/profiles"

/* One directory a recording must stay apart from, and what it is, for
 * messages ("a profile directory", "the cache directory", ...). */
struct tsync_record_place {
        const char *dir;
        const char *what;
};

/* How dir and a place overlap (TSYNC_PLACE_APART: they do not). */
enum tsync_place_overlap {
        TSYNC_PLACE_APART,
        TSYNC_PLACE_IS,     /* dir is the place */
        TSYNC_PLACE_INSIDE, /* dir lies inside the place */
        TSYNC_PLACE_HOLDS,  /* dir holds the place */
};

/* How the directory dir (absolute, existing or not) overlaps place (the
 * same), by path and by device and inode. */
int tsync_record_place_overlap(const char *dir, const char *place, enum tsync_place_overlap *ret,
                               struct tsync_err *err);

/* Refuses dir (-EPERM, the message naming dir, the place and how) when it
 * is, lies inside or (with holds) holds any of places[0..n) (NULL dirs
 * skipped); what names dir in the message ("record-dir '/srv/rec'"). */
int tsync_record_place_check(const char *dir, const char *what, const struct tsync_record_place *places, size_t n,
                             bool holds, struct tsync_err *err);

/* The places of a host (at most TSYNC_RECORD_PLACES_MAX): paths' profile
 * directories, its cache and record root, and always the system's profile
 * directories, TSYNC_CACHE_DEFAULT_DIR, TSYNC_RECORD_ROOT and
 * TSYNC_STATE_ROOT. paths may be NULL. Returns how many. */
#define TSYNC_RECORD_PLACES_MAX 24
size_t tsync_record_places(const struct tsync_plan_paths *paths, struct tsync_record_place *ret);

/* Refuses a recording's output path whose directory is or lies inside one of
 * the places of paths (tsync_record_places): said before the workload runs,
 * and again when the profile is written. */
int tsync_record_check_output_place(const char *output, const struct tsync_plan_paths *paths, struct tsync_err *err);
