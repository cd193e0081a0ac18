/* A directory of compiled filters keyed by what determines them. */
#pragma once

#include "shared/error.h"
#include "translate/compile.h"
#include "translate/profile.h"

#define TSYNC_CACHE_DEFAULT_DIR "/var/cache/oci-seccomp-tsync"
#define TSYNC_CACHE_KEY_LEN     64 /* hex digits of SHA-256 */
/* An entry: this header (magic, version, its own key, a SHA-256), then a filter file. */
#define TSYNC_CACHE_ENTRY_HEADER_SIZE 120

/* Hex SHA-256 of: the canonical profile, the compile options, caps (the
 * capability set the profile was resolved against, 0 for OCI profiles), the
 * libseccomp version and ours. */
int tsync_cache_key(const struct tsync_profile *p, const struct tsync_compile_opts *opts, uint64_t caps,
                    char ret[TSYNC_CACHE_KEY_LEN + 1], struct tsync_err *err);

/* The key of a profile held as JSON (a config's linux.seccomp), from the
 * document as parsed instead of its canonical profile: a hit spares reading,
 * checking and canonicalizing the profile. Only this build would judge that
 * document as it did when it stored the entry, so this program's GNU build ID
 * is part of the key (-ENOENT without one: no such key). The other inputs are
 * tsync_cache_key's. */
struct tsync_json;
int tsync_cache_key_json(const struct tsync_json *profile, const struct tsync_compile_opts *opts, uint64_t caps,
                         char ret[TSYNC_CACHE_KEY_LEN + 1], struct tsync_err *err);

/* Loads <dir>/<key>.bpf. -ENOENT when absent. A truncated or corrupt entry, one
 * of an older format, or one that names another key (renamed or swapped) is
 * removed and reported as -ENOENT too, so the caller rebuilds it. A directory
 * that is not ours alone (tsync_check_private_dir) or a symlink is an error. */
int tsync_cache_load(const char *dir, const char *key, struct tsync_program **ret, struct tsync_err *err);

/* Writes <dir>/<key>.bpf atomically (tsync_write_at, durable, mode 0600);
 * creates dir (0700) if missing; refuses a dir that is not ours alone. */
int tsync_cache_store(const char *dir, const char *key, const struct tsync_program *prog, struct tsync_err *err);

/* Compile through the cache: load, or compile and store. cache_dir NULL: no cache.
 * A hit checks the names as a compile would (tsync_compile_check_names), for
 * warnings, or for opts->strict; with neither it does not. */
int tsync_cache_compile(const char *cache_dir, const struct tsync_profile *p, const struct tsync_compile_opts *opts,
                        uint64_t caps, struct tsync_program **ret, struct tsync_warnings *warnings,
                        struct tsync_err *err);
