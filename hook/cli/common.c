#include <errno.h>
#include <getopt.h>
#include <seccomp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>

#include "cli.h"
#include "facts/config_caps.h"
#include "facts/plain_exec.h"
#include "plan/plan.h"
#include "shared/cleanup.h"
#include "translate/cache.h"
#include "util/json.h"

int cli_input_option(struct cli_input *in, int opt, const char *arg)
{
        struct tsync_err err = { 0 };
        switch (opt) {
        case 'f':
                if (tsync_format_parse(arg, &in->source.format) < 0) {
                        frontend_errorf("--format", "'%s' is not one of auto, config, oci, docker", arg);
                        return -1;
                }
                return 1;
        case 'C':
                if (tsync_caps_parse_list(arg, &in->source.caps, &err) < 0) {
                        frontend_error("--caps", &err);
                        return -1;
                }
                in->source.have_caps = true;
                return 1;
        case 'c':
                in->config = arg;
                return 1;
        case 'a':
                if (tsync_arch_parse(arg, &in->compile.native_arch) < 0) {
                        frontend_errorf("--arch", "architecture '%s' is unknown", arg);
                        return -1;
                }
                in->source.native_arch = in->compile.native_arch;
                return 1;
        case 's':
                in->compile.strict = true;
                return 1;
        case 'D':
                in->cache_dir = arg;
                return 1;
        case 'N':
                in->no_cache = true;
                return 1;
        default:
                return 0;
        }
}

int cli_input_getopt(int argc, char **argv, const char *shortopts, const struct option *options, struct cli_input *in)
{
        int opt;
        while ((opt = getopt_long(argc, argv, shortopts, options, NULL)) != -1) {
                int r = cli_input_option(in, opt, optarg);
                if (r < 0)
                        return CLI_INPUT_BAD;
                if (r == 0)
                        return opt;
        }
        return -1;
}

int cli_help(void (*help)(FILE *), int opt)
{
        if (opt == CLI_INPUT_BAD)
                return CLI_EXIT_USAGE;
        help(opt == 'h' ? stdout : stderr);
        return opt == 'h' ? CLI_EXIT_OK : CLI_EXIT_USAGE;
}

/* The workload's bounding set, as the hook judges it: a config rewritten by
 * inject or precreate lends CAP_SYS_ADMIN to the init, so its plan's record of
 * the original sets counts, not process.capabilities. */
static int caps_from_config(const char *path, uint64_t *ret, struct tsync_err *err)
{
        _cleanup_json_ struct tsync_json *doc = NULL;
        int r = tsync_json_parse_file(path, TSYNC_CONFIG_LIMITS, &doc, err);
        if (r < 0)
                return r;
        _cleanup_plan_ struct tsync_plan *plan = NULL;
        const struct tsync_json *caps = NULL;
        r = tsync_plan_from_config(doc, &plan, err);
        if (r == 0) {
                caps = plan->capabilities;
                r = tsync_caps_bounding_of(caps, "plan.capabilities.bounding", ret, err);
        } else if (r == -ENOENT) {
                caps = tsync_json_get(tsync_json_get(doc, "process"), "capabilities");
                r = tsync_caps_bounding_of(caps, "process.capabilities.bounding", ret, err);
        }
        struct tsync_warnings w = { 0 };
        if (r == 0)
                r = tsync_caps_warn_ignored(caps, &w, err);
        frontend_warnings(path, &w);
        if (r < 0)
                return tsync_error_prefix(err, "%s", path);
        return 0;
}

int cli_load(struct cli_input *in, const char *path, struct tsync_profile **ret, struct tsync_source_info *ret_info,
             struct tsync_err *err)
{
        if (in->config && !in->source.have_caps) {
                int r = caps_from_config(in->config, &in->source.caps, err);
                if (r < 0)
                        return r;
                in->source.have_caps = true;
        }
        in->source.warnings = &in->warnings;
        int r = tsync_source_load(path, &in->source, ret, ret_info, err);
        if (!in->keep_warnings)
                frontend_warnings(path, &in->warnings);
        return r;
}

int cli_load_compiled(struct cli_input *in, const char *cmd, const char *path, struct tsync_profile **ret_profile,
                      struct tsync_program **ret_prog)
{
        struct tsync_err err = { 0 };
        struct tsync_warnings w = { 0 };
        struct tsync_source_info info;
        _cleanup_profile_ struct tsync_profile *p = NULL;
        if (cli_load(in, path, &p, &info, &err) < 0) {
                frontend_error(cmd, &err);
                return -1;
        }
        const char *dir = in->no_cache ? NULL : in->cache_dir;
        int r = tsync_cache_compile(dir, p, &in->compile, info.caps, ret_prog, &w, &err);
        frontend_warnings(path, &w);
        if (r < 0) {
                frontend_error(path, &err);
                return -1;
        }
        if (ret_profile)
                *ret_profile = TAKE_PTR(p);
        return 0;
}
