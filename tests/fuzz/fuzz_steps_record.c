/* The record target's steps (see fuzz_steps.h): any bytes as a record file
 * (record/record_file.h), which the workload can write to, then the profile poststop
 * makes of it.
 *
 * What must hold: a refusal carries its errno and a message; an accepted file
 * holds at most one call per 11 bytes, sorted and distinct, and written back
 * it reads as the same set; its profile (each format, each errno) is the same
 * bytes twice, reads back with our own profile reader, compiles, is strict
 * (stricter) with strict names, and merged into itself changes nothing. */
#include <errno.h>
#include <seccomp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "../../hook/record/record_internal.h"
#include "fuzz_steps.h"
#include "record/record_file.h"
#include "shared/cleanup.h"
#include "translate/compile.h"
#include "translate/profile.h"
#include "util/json.h"

static void record_set_freep(struct tsync_record_set **set)
{
        tsync_record_set_free(*set);
}

/* The set as the init would have written it. */
static char *record_text(const struct tsync_record_set *set, size_t *ret_len)
{
        char *text = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&text, &len);
        if (!f)
                fuzz_fail("out of memory");
        fputs(TSYNC_RECORD_MAGIC, f);
        for (size_t i = 0; i < set->n; i++)
                fprintf(f, "%08x %u\n", set->calls[i].abi == SCMP_ARCH_X32 ? SCMP_ARCH_X86_64 : set->calls[i].abi,
                        set->calls[i].nr);
        if (fclose(f) != 0)
                fuzz_fail("out of memory");
        *ret_len = len;
        return text;
}

static void check_profile_text(const char *text, size_t len, enum tsync_record_format format)
{
        struct tsync_err err = { 0 };
        _cleanup_json_ struct tsync_json *doc = NULL;
        _cleanup_profile_ struct tsync_profile *p = NULL;
        _cleanup_program_ struct tsync_program *prog = NULL;
        struct tsync_warnings w = { 0 };

        int r = tsync_json_parse(text, len, NULL, &doc, &err);
        if (r < 0)
                fuzz_fail("a recorded profile is not JSON: %s", err.msg);
        if (tsync_profile_check_keys(doc, format == TSYNC_RECORD_FORMAT_DOCKER, false, "", NULL, &err) < 0)
                fuzz_fail("a recorded profile has a key its format does not define: %s", err.msg);
        if (format == TSYNC_RECORD_FORMAT_DOCKER) {
                struct tsync_docker_ctx ctx = { .native_arch = seccomp_arch_native(), .kernel_major = 6 };
                r = tsync_profile_from_docker(doc, &ctx, &p, &err);
        } else {
                r = tsync_profile_from_oci(doc, &p, &err);
        }
        if (r < 0)
                fuzz_fail("our profile reader refuses a recorded profile: %s", err.msg);
        /* Every name is one libseccomp knows: strict compiling accepts it. */
        struct tsync_compile_opts opts = { .strict = true };
        r = tsync_compile(p, &opts, &prog, &w, &err);
        tsync_warnings_clear(&w);
        if (r < 0)
                fuzz_fail("a recorded profile does not compile: %s", err.msg);
}

/* The profile of set in format, read back as req.input: the same bytes. */
static void check_merge_fixed_point(const struct tsync_record_set *set, const char *text, size_t len,
                                    struct tsync_record_request req)
{
        struct tsync_err err = { 0 };
        _cleanup_close_ int fd = memfd_create("fuzz-record", MFD_CLOEXEC);
        char path[64];
        if (fd < 0 || write(fd, text, len) != (ssize_t)len)
                return; /* no memfd here: nothing to check */
        (void)snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
        req.input = path;
        _cleanup_free_ char *again = NULL;
        size_t again_len = 0;
        int r = tsync_record_profile(set, &req, &again, &again_len, &err);
        if (r < 0)
                fuzz_fail("a recorded profile merged into its own recording is refused: %s", err.msg);
        if (again_len != len || memcmp(again, text, len) != 0)
                fuzz_fail("a recorded profile merged into its own recording changes");
}

void fuzz_record(const uint8_t *data, size_t size)
{
        struct tsync_err err = { 0 };
        __attribute__((cleanup(record_set_freep))) struct tsync_record_set *set = NULL;

        fuzz_stats.inputs++;
        /* Exactly size bytes, so ASan sees any read past them. */
        _cleanup_free_ char *buf = malloc(size ? size : 1);
        if (!buf)
                fuzz_fail("out of memory");
        memcpy(buf, data, size);
        int r = tsync_record_parse(buf, size, &set, &err);
        fuzz_check_err(r, &err, "tsync_record_parse");
        if (r < 0)
                return;
        fuzz_stats.parsed++;
        if (set->n > size / 11)
                fuzz_fail("%zu calls from %zu bytes", set->n, size);
        for (size_t i = 1; i < set->n; i++)
                if (set->calls[i - 1].abi > set->calls[i].abi ||
                    (set->calls[i - 1].abi == set->calls[i].abi && set->calls[i - 1].nr >= set->calls[i].nr))
                        fuzz_fail("the set is not sorted and distinct at %zu", i);

        /* Written back, it reads as the same set. */
        size_t len = 0;
        _cleanup_free_ char *text = record_text(set, &len);
        __attribute__((cleanup(record_set_freep))) struct tsync_record_set *again = NULL;
        r = tsync_record_parse(text, len, &again, &err);
        if (r < 0 || again->n != set->n ||
            (set->n && memcmp(again->calls, set->calls, set->n * sizeof(*set->calls)) != 0))
                fuzz_fail("a set written back does not read the same: %s", r < 0 ? err.msg : "differs");

        /* Each format and errno in turn, by the input's size. */
        struct tsync_record_request req = {
                .format = size & 1 ? TSYNC_RECORD_FORMAT_DOCKER : TSYNC_RECORD_FORMAT_OCI,
                .errno_ret = size & 2 ? ENOSYS : EPERM,
        };
        _cleanup_free_ char *profile = NULL, *twice = NULL;
        size_t plen = 0, tlen = 0;
        r = tsync_record_profile(set, &req, &profile, &plen, &err);
        fuzz_check_err(r, &err, "tsync_record_profile");
        if (r < 0) {
                if (r != -ENODATA)
                        fuzz_fail("tsync_record_profile refused a parsed recording: %s", err.msg);
                return;
        }
        fuzz_stats.profiles++;
        if (strlen(profile) != plen || plen == 0 || profile[plen - 1] != '\n')
                fuzz_fail("the profile's length or last byte is wrong");
        r = tsync_record_profile(set, &req, &twice, &tlen, &err);
        if (r < 0 || tlen != plen || memcmp(twice, profile, plen) != 0)
                fuzz_fail("the same recording gives another profile");
        check_profile_text(profile, plen, req.format);
        fuzz_stats.programs++;
        check_merge_fixed_point(set, profile, plen, req);
}
