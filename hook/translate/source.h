/* Reading a profile from a file in any of the forms we accept. */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "shared/error.h"
#include "translate/profile.h"
#include "util/json.h"

enum tsync_format {
        TSYNC_FORMAT_AUTO,   /* a config.json, a Docker-format profile or a bare linux.seccomp object */
        TSYNC_FORMAT_CONFIG, /* an OCI config.json: its linux.seccomp */
        TSYNC_FORMAT_OCI,    /* a bare linux.seccomp object */
        TSYNC_FORMAT_DOCKER, /* a Docker/containers-common profile */
};

/* How unknown keys are treated (tsync_profile_check_keys). The caller decides,
 * because it knows what the object is for: a layer of ours must say exactly
 * what it means, a config's own linux.seccomp is read as runc reads it. */
enum tsync_keys {
        TSYNC_KEYS_AUTO,  /* errors, except in a config.json's linux.seccomp (FORMAT_CONFIG): warnings */
        TSYNC_KEYS_ERROR, /* errors whatever the form: a layer (even one given as a config.json) */
        TSYNC_KEYS_WARN,  /* warnings: the object is a config's own linux.seccomp (replace mode) */
};

struct tsync_source_opts {
        enum tsync_format format;
        bool have_caps;       /* caps below is set; otherwise a config's bounding set is used */
        uint64_t caps;        /* capability set for Docker-format includes/excludes */
        uint32_t native_arch; /* 0: seccomp_arch_native() */
        enum tsync_keys keys;
        struct tsync_warnings *warnings; /* unknown keys when they warn (NULL: dropped) */
};

/* What a source resolved to. */
struct tsync_source_info {
        enum tsync_format format; /* the form found (never AUTO) */
        uint64_t caps;            /* the capability set includes/excludes were judged against; 0 unless Docker form */
};

int tsync_format_parse(const char *name, enum tsync_format *ret);

/* Picks the profile out of an already parsed document. For a config, errors are
 * prefixed "linux.seccomp"; a config without one is an error. */
int tsync_source_from_json(const struct tsync_json *doc, const struct tsync_source_opts *opts,
                           struct tsync_profile **ret, struct tsync_source_info *ret_info, struct tsync_err *err);

/* Reads path (bounded size and depth) and picks its profile. Errors are prefixed with the path. */
int tsync_source_load(const char *path, const struct tsync_source_opts *opts, struct tsync_profile **ret,
                      struct tsync_source_info *ret_info, struct tsync_err *err);

/* The running kernel's major.minor, for Docker-format minKernel. */
int tsync_kernel_version(unsigned *ret_major, unsigned *ret_minor);
