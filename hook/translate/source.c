#include "translate/source.h"

#include <errno.h>
#include <seccomp.h>
#include <stdio.h>
#include <string.h>
#include <sys/utsname.h>

#include "facts/config_caps.h"
#include "shared/cleanup.h"
#include "shared/errnos.h"

int tsync_format_parse(const char *name, enum tsync_format *ret)
{
        static const char *const names[] = {
                [TSYNC_FORMAT_AUTO] = "auto",
                [TSYNC_FORMAT_CONFIG] = "config",
                [TSYNC_FORMAT_OCI] = "oci",
                [TSYNC_FORMAT_DOCKER] = "docker",
        };
        for (size_t i = 0; i < ARRAY_SIZE(names); i++)
                if (strcmp(name, names[i]) == 0) {
                        *ret = (enum tsync_format)i;
                        return 0;
                }
        return -EINVAL;
}

int tsync_kernel_version(unsigned *ret_major, unsigned *ret_minor)
{
        struct utsname u;
        unsigned major, minor;
        if (uname(&u) < 0)
                return -errno;
        if (sscanf(u.release, "%u.%u", &major, &minor) != 2)
                return -EINVAL;
        *ret_major = major;
        *ret_minor = minor;
        return 0;
}

static bool looks_like_config(const struct tsync_json *doc)
{
        return tsync_json_get(doc, "ociVersion") || tsync_json_get(doc, "linux") || tsync_json_get(doc, "process");
}

static int from_docker(const struct tsync_json *doc, const struct tsync_source_opts *opts, uint64_t caps,
                       struct tsync_profile **ret, struct tsync_err *err)
{
        struct tsync_docker_ctx ctx = { .native_arch = opts->native_arch ? opts->native_arch : seccomp_arch_native(),
                                        .caps = caps };
        int r = tsync_kernel_version(&ctx.kernel_major, &ctx.kernel_minor);
        if (r < 0)
                return tsync_error(err, -r, "cannot read the kernel version for minKernel: %s", tsync_errtext(-r));
        return tsync_profile_from_docker(doc, &ctx, ret, err);
}

int tsync_source_from_json(const struct tsync_json *doc, const struct tsync_source_opts *opts,
                           struct tsync_profile **ret, struct tsync_source_info *ret_info, struct tsync_err *err)
{
        enum tsync_format format = opts->format;
        int r;

        r = tsync_json_expect(doc, "(root)", TSYNC_JSON_OBJECT, err);
        if (r < 0)
                return r;
        if (format == TSYNC_FORMAT_AUTO)
                format = looks_like_config(doc)         ? TSYNC_FORMAT_CONFIG
                         : tsync_profile_is_docker(doc) ? TSYNC_FORMAT_DOCKER
                                                        : TSYNC_FORMAT_OCI;

        struct tsync_source_info info = { .format = format, .caps = format == TSYNC_FORMAT_DOCKER ? opts->caps : 0 };
        bool warn = opts->keys == TSYNC_KEYS_WARN || (opts->keys == TSYNC_KEYS_AUTO && format == TSYNC_FORMAT_CONFIG);
        const char *prefix =
                warn ? "linux.seccomp" : ""; /* warnings name the whole path; errors gain it on the way up */
        switch (format) {
        case TSYNC_FORMAT_CONFIG: {
                const struct tsync_json *seccomp = tsync_json_get(tsync_json_get(doc, "linux"), "seccomp");
                if (!seccomp || seccomp->type == TSYNC_JSON_NULL)
                        return tsync_error(err, ENOENT, "linux.seccomp: missing: the config has no seccomp profile");
                r = tsync_profile_check_keys(seccomp, false, warn, prefix, opts->warnings, err);
                if (r < 0)
                        return tsync_error_prefix(err, "linux.seccomp");
                r = tsync_profile_from_oci(seccomp, ret, err);
                if (r < 0)
                        return tsync_error_prefix(err, "linux.seccomp");
                break;
        }
        case TSYNC_FORMAT_OCI:
                r = tsync_profile_check_keys(doc, false, warn, prefix, opts->warnings, err);
                if (r < 0)
                        return r;
                r = tsync_profile_from_oci(doc, ret, err);
                if (r < 0)
                        return r;
                break;
        case TSYNC_FORMAT_DOCKER:
                if (!opts->have_caps)
                        return tsync_error(err, EINVAL,
                                           "a Docker-format profile needs a capability set to judge its includes "
                                           "and excludes (give --caps or --config)");
                r = tsync_profile_check_keys(doc, true, warn, prefix, opts->warnings, err);
                if (r < 0)
                        return r;
                r = from_docker(doc, opts, opts->caps, ret, err);
                if (r < 0)
                        return r;
                break;
        case TSYNC_FORMAT_AUTO:
                return tsync_error(err, EINVAL, "no format");
        }
        if (ret_info)
                *ret_info = info;
        return 0;
}

int tsync_source_load(const char *path, const struct tsync_source_opts *opts, struct tsync_profile **ret,
                      struct tsync_source_info *ret_info, struct tsync_err *err)
{
        _cleanup_json_ struct tsync_json *doc = NULL;
        int r = tsync_json_parse_file(path, NULL, &doc, err);
        if (r < 0)
                return r;
        r = tsync_source_from_json(doc, opts, ret, ret_info, err);
        if (r < 0)
                return tsync_error_prefix(err, "%s", path);
        return 0;
}
