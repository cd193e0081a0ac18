/* bench_compile [OPTIONS] PROFILE: how long the translator takes on one
 * profile, through the library as the CLI and the hook use it. A benchmark,
 * not a test: it prints figures and asserts no timing. It does fail (exit 1)
 * if a "cache hit" was not one, or if the cache returned a program other than
 * the one compiled cold, since the figures would then measure the wrong thing.
 *
 * PROFILE is read as the CLI reads it: an OCI config.json, a bare
 * linux.seccomp object or a Docker-format profile (--format forces one), with
 * the capability set from --caps or from --config's process.capabilities.bounding.
 * The capability set is resolved once, before timing: the hook has the config
 * parsed already.
 *
 * Phases, each timed with CLOCK_MONOTONIC over N iterations after W warm-up ones:
 *   parse            tsync_source_load: read, JSON, profile
 *   compile          tsync_compile of the parsed profile (no cache)
 *   parse+compile    both: what a run without a cache pays (cold)
 *   cache miss+store tsync_cache_compile with no entry: names, key, compile,
 *                    store (temp file, fsync, rename); the entry is removed
 *                    between iterations, untimed
 *   cache hit        tsync_cache_compile with the entry present: names, key
 *                    (canonical profile + SHA-256), load and decode
 *   parse+cache hit  what a run with a warm cache pays
 *
 * The cache is a fresh directory under --tmp-dir (default $TMPDIR or /var/tmp,
 * which is on the same filesystem as the default cache dir on Debian), removed
 * at exit. */
#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <seccomp.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "bench_common.h"
#include "facts/config_caps.h"
#include "shared/cleanup.h"
#include "shared/error.h"
#include "translate/cache.h"
#include "translate/compile.h"
#include "translate/source.h"
#include "util/json.h"

#define PROG "bench_compile"

struct bench {
        const char *path;
        struct tsync_source_opts source;
        struct tsync_compile_opts compile;
        uint64_t caps; /* what the profile was resolved against (cache key input) */
        char cache_dir[PATH_MAX];
        char entry[PATH_MAX];
        const struct tsync_profile *profile;   /* parsed once, for the phases that start from it */
        const struct tsync_program *reference; /* the cold compile, to check cache results against */
        unsigned warmup, iterations;
};

static void report(const struct tsync_err *err, const char *what)
{
        fprintf(stderr, PROG ": %s: %s\n", what, err->msg);
}

static bool same_program(const struct tsync_program *a, const struct tsync_program *b)
{
        return a->len == b->len && a->flags == b->flags && memcmp(a->insns, b->insns, a->len * sizeof(*a->insns)) == 0;
}

/* One iteration of a phase; returns 0 or -errno (message in err). */
typedef int (*phase_fn)(const struct bench *b, struct tsync_err *err);

static int do_parse(const struct bench *b, struct tsync_err *err)
{
        _cleanup_profile_ struct tsync_profile *p = NULL;

        return tsync_source_load(b->path, &b->source, &p, NULL, err);
}

static int compile_checked(const struct bench *b, const struct tsync_profile *p, const char *cache_dir,
                           struct tsync_err *err)
{
        _cleanup_program_ struct tsync_program *prog = NULL;
        struct tsync_warnings w = { 0 };
        int r = tsync_cache_compile(cache_dir, p, &b->compile, b->caps, &prog, &w, err);

        tsync_warnings_clear(&w);
        if (r < 0)
                return r;
        if (b->reference && !same_program(prog, b->reference))
                return tsync_error(err, EPROTO, "the program differs from the cold compile's");
        return 0;
}

static int do_compile(const struct bench *b, struct tsync_err *err)
{
        return compile_checked(b, b->profile, NULL, err);
}

static int do_parse_compile(const struct bench *b, struct tsync_err *err)
{
        _cleanup_profile_ struct tsync_profile *p = NULL;
        int r = tsync_source_load(b->path, &b->source, &p, NULL, err);

        return r < 0 ? r : compile_checked(b, p, NULL, err);
}

static int do_cache(const struct bench *b, struct tsync_err *err)
{
        return compile_checked(b, b->profile, b->cache_dir, err);
}

static int do_parse_cache(const struct bench *b, struct tsync_err *err)
{
        _cleanup_profile_ struct tsync_profile *p = NULL;
        int r = tsync_source_load(b->path, &b->source, &p, NULL, err);

        return r < 0 ? r : compile_checked(b, p, b->cache_dir, err);
}

static int remove_entry(const struct bench *b, struct tsync_err *err)
{
        if (unlink(b->entry) < 0 && errno != ENOENT)
                return tsync_error(err, errno, "unlink %s: %s", b->entry, strerror(errno));
        return 0;
}

/* An entry is replaced by rename of a new file, so a store between two stats
 * changes the inode and its change time (the pair: inode numbers get reused). */
struct entry_id {
        ino_t ino;
        struct timespec ctime;
};

static int entry_id(const struct bench *b, struct entry_id *ret, struct tsync_err *err)
{
        struct stat st;

        if (stat(b->entry, &st) < 0)
                return tsync_error(err, errno, "%s: %s", b->entry, strerror(errno));
        *ret = (struct entry_id){ .ino = st.st_ino, .ctime = st.st_ctim };
        return 0;
}

static bool same_entry(const struct entry_id *a, const struct entry_id *b)
{
        return a->ino == b->ino && a->ctime.tv_sec == b->ctime.tv_sec && a->ctime.tv_nsec == b->ctime.tv_nsec;
}

/* Runs fn warm-up + N times, timing the N; before (untimed) runs before each. */
static int run_phase(const struct bench *b, phase_fn fn, phase_fn before, struct bench_figures *ret,
                     struct tsync_err *err)
{
        _cleanup_free_ double *ms = calloc(b->iterations, sizeof(*ms));
        int r;

        if (!ms)
                return tsync_error(err, ENOMEM, "out of memory");
        for (unsigned i = 0; i < b->warmup + b->iterations; i++) {
                if (before && (r = before(b, err)) < 0)
                        return r;
                double t0 = bench_now_ms();
                r = fn(b, err);
                double t1 = bench_now_ms();
                if (r < 0)
                        return r;
                if (i >= b->warmup)
                        ms[i - b->warmup] = t1 - t0;
        }
        *ret = bench_summarise(ms, b->iterations);
        return 0;
}

static int caps_from_config(const char *path, uint64_t *ret, struct tsync_err *err)
{
        _cleanup_json_ struct tsync_json *doc = NULL;
        int r = tsync_json_parse_file(path, NULL, &doc, err);

        if (r < 0)
                return r;
        const struct tsync_json *bounding =
                tsync_json_get(tsync_json_get(tsync_json_get(doc, "process"), "capabilities"), "bounding");
        if (!bounding) {
                /* As the CLI: a config without a bounding list gives no capabilities. */
                *ret = 0;
                return 0;
        }
        r = tsync_caps_from_json(bounding, "process.capabilities.bounding", ret, err);
        return r < 0 ? tsync_error_prefix(err, "%s", path) : 0;
}

static long peak_rss_kib(void)
{
        struct rusage ru;

        return getrusage(RUSAGE_SELF, &ru) == 0 ? ru.ru_maxrss : -1;
}

static const char *format_name(enum tsync_format f)
{
        switch (f) {
        case TSYNC_FORMAT_CONFIG:
                return "OCI config.json";
        case TSYNC_FORMAT_OCI:
                return "OCI linux.seccomp";
        case TSYNC_FORMAT_DOCKER:
                return "Docker format";
        default:
                return "auto";
        }
}

static void remove_cache_dir(const char *dir)
{
        DIR *d = opendir(dir);
        struct dirent *de;

        if (!d)
                return;
        /* Only our own entries and temp files are in it: the directory is ours. */
        while ((de = readdir(d))) {
                char p[PATH_MAX * 2];
                if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
                        continue;
                snprintf(p, sizeof(p), "%s/%s", dir, de->d_name);
                (void)unlink(p);
        }
        (void)closedir(d);
        (void)rmdir(dir);
}

static void usage(FILE *f)
{
        fprintf(f, "usage: " PROG " [-n N] [-w W] [--format auto|config|oci|docker] [--caps LIST | --config CONFIG]\n"
                   "       [--arch ARCH] [--tmp-dir DIR] [--tsv] PROFILE\n"
                   "  -n N        timed iterations per phase (default 50)\n"
                   "  -w W        untimed warm-up iterations per phase (default 3)\n"
                   "  --tsv       machine-readable: 'key<TAB>value...' lines\n");
}

static int parse_count(const char *s, unsigned min, unsigned *ret)
{
        long v;
        int r = bench_parse_long(s, min, 1000000, &v);
        if (r == 0)
                *ret = (unsigned)v;
        return r;
}

static const struct {
        const char *name;
        phase_fn fn, before;
        bool cached;
} phases[] = {
        { "parse", do_parse, NULL, false },
        { "compile", do_compile, NULL, false },
        { "parse+compile (cold)", do_parse_compile, NULL, false },
        { "cache miss+store", do_cache, remove_entry, true },
        { "cache hit", do_cache, NULL, true },
        { "parse+cache hit", do_parse_cache, NULL, true },
};

int main(int argc, char **argv)
{
        static const struct option longopts[] = {
                { "format", required_argument, NULL, 'f' },  { "caps", required_argument, NULL, 'C' },
                { "config", required_argument, NULL, 'c' },  { "arch", required_argument, NULL, 'a' },
                { "tmp-dir", required_argument, NULL, 'T' }, { "tsv", no_argument, NULL, 't' },
                { "help", no_argument, NULL, 'h' },          { NULL, 0, NULL, 0 },
        };
        struct bench b = { .warmup = 3, .iterations = 50 };
        struct tsync_err err = { 0 };
        const char *config = NULL, *tmpdir = getenv("TMPDIR");
        bool tsv = false;
        int opt, r;

        if (!tmpdir || !*tmpdir)
                tmpdir = "/var/tmp";
        while ((opt = getopt_long(argc, argv, "n:w:h", longopts, NULL)) != -1) {
                switch (opt) {
                case 'n':
                        if (parse_count(optarg, 1, &b.iterations) < 0) {
                                usage(stderr);
                                return 2;
                        }
                        break;
                case 'w':
                        if (parse_count(optarg, 0, &b.warmup) < 0) {
                                usage(stderr);
                                return 2;
                        }
                        break;
                case 'f':
                        if (tsync_format_parse(optarg, &b.source.format) < 0) {
                                fprintf(stderr, PROG ": --format: '%s' is not one of auto, config, oci, docker\n",
                                        optarg);
                                return 2;
                        }
                        break;
                case 'C':
                        if (tsync_caps_parse_list(optarg, &b.source.caps, &err) < 0) {
                                report(&err, "--caps");
                                return 2;
                        }
                        b.source.have_caps = true;
                        break;
                case 'c':
                        config = optarg;
                        break;
                case 'a':
                        if (tsync_arch_parse(optarg, &b.compile.native_arch) < 0) {
                                fprintf(stderr, PROG ": --arch: architecture '%s' is unknown\n", optarg);
                                return 2;
                        }
                        b.source.native_arch = b.compile.native_arch;
                        break;
                case 'T':
                        tmpdir = optarg;
                        break;
                case 't':
                        tsv = true;
                        break;
                default: /* -h, or an option we do not know */
                        return bench_usage_status(usage, opt);
                }
        }
        if (optind != argc - 1) {
                usage(stderr);
                return 2;
        }
        b.path = argv[optind];
        if (config && !b.source.have_caps) {
                if (caps_from_config(config, &b.source.caps, &err) < 0) {
                        report(&err, "--config");
                        return 1;
                }
                b.source.have_caps = true;
        }

        long rss_start = peak_rss_kib();
        _cleanup_profile_ struct tsync_profile *profile = NULL;
        struct tsync_source_info info = { 0 };
        r = tsync_source_load(b.path, &b.source, &profile, &info, &err);
        if (r < 0) {
                report(&err, "load");
                return 1;
        }
        b.profile = profile;
        b.caps = info.caps;

        /* The reference program, and the warnings a real run would print (once). */
        _cleanup_program_ struct tsync_program *reference = NULL;
        struct tsync_warnings w = { 0 };
        r = tsync_compile(profile, &b.compile, &reference, &w, &err);
        for (size_t i = 0; i < w.len; i++)
                fprintf(stderr, PROG ": warning: %s\n", w.msgs[i]);
        tsync_warnings_clear(&w);
        if (r < 0) {
                report(&err, "compile");
                return 1;
        }
        b.reference = reference;

        char key[TSYNC_CACHE_KEY_LEN + 1];
        if (tsync_cache_key(profile, &b.compile, b.caps, key, &err) < 0) {
                report(&err, "cache key");
                return 1;
        }
        if ((size_t)snprintf(b.cache_dir, sizeof(b.cache_dir), "%s/bench_compile.XXXXXX", tmpdir) >=
            sizeof(b.cache_dir) - TSYNC_CACHE_KEY_LEN - 8) {
                fprintf(stderr, PROG ": --tmp-dir: '%s' is too long\n", tmpdir);
                return 2;
        }
        if (!mkdtemp(b.cache_dir)) {
                fprintf(stderr, PROG ": mkdtemp %s: %s\n", b.cache_dir, strerror(errno));
                return 1;
        }
        if ((size_t)snprintf(b.entry, sizeof(b.entry), "%s/%s.bpf", b.cache_dir, key) >= sizeof(b.entry)) {
                remove_cache_dir(b.cache_dir);
                fprintf(stderr, PROG ": --tmp-dir: '%s' is too long\n", tmpdir);
                return 2;
        }

        struct bench_figures fig[ARRAY_SIZE(phases)];
        struct entry_id before = { 0 }, after = { 0 };
        bool have_before = false;
        r = 0;
        for (size_t i = 0; i < ARRAY_SIZE(phases); i++) {
                /* The hit phases follow the miss phase, which leaves the entry in place. */
                if (phases[i].cached && !phases[i].before && !have_before) {
                        if ((r = entry_id(&b, &before, &err)) < 0)
                                break;
                        have_before = true;
                }
                r = run_phase(&b, phases[i].fn, phases[i].before, &fig[i], &err);
                if (r < 0) {
                        tsync_error_prefix(&err, "%s", phases[i].name);
                        break;
                }
        }
        if (r == 0 && (r = entry_id(&b, &after, &err)) == 0 && (!have_before || !same_entry(&before, &after)))
                r = tsync_error(&err, EPROTO, "cache hit: the entry was rewritten, so the hits were misses");
        remove_cache_dir(b.cache_dir);
        if (r < 0) {
                report(&err, "bench");
                return 1;
        }
        long rss_peak = peak_rss_kib();

        if (tsv) {
                printf("profile\t%s\nformat\t%s\nrules\t%zu\ncaps\t0x%" PRIx64 "\n", b.path, format_name(info.format),
                       profile->n_rules, b.caps);
                printf("iterations\t%u\nwarmup\t%u\ninsns\t%zu\nflags\t0x%" PRIx32 "\n", b.iterations, b.warmup,
                       reference->len, reference->flags);
                for (size_t i = 0; i < ARRAY_SIZE(phases); i++)
                        printf("phase\t%s\t%.3f\t%.3f\t%.3f\n", phases[i].name, fig[i].median, fig[i].p90, fig[i].min);
                printf("rss_start_kib\t%ld\nrss_peak_kib\t%ld\n", rss_start, rss_peak);
        } else {
                printf("%s: %s, %zu rules, caps 0x%" PRIx64 "\n", b.path, format_name(info.format), profile->n_rules,
                       b.caps);
                printf("program: %zu instructions, flags 0x%" PRIx32 "\n", reference->len, reference->flags);
                printf("%u iterations per phase after %u warm-up, cache under %s\n", b.iterations, b.warmup, tmpdir);
                printf("%-22s %10s %10s %10s\n", "ms", "median", "p90", "min");
                for (size_t i = 0; i < ARRAY_SIZE(phases); i++)
                        printf("%-22s %10.3f %10.3f %10.3f\n", phases[i].name, fig[i].median, fig[i].p90, fig[i].min);
                printf("peak RSS: %.1f MiB (%.1f MiB before the first parse)\n", (double)rss_peak / 1024.0,
                       (double)rss_start / 1024.0);
        }
        return fflush(stdout) == 0 ? 0 : 1;
}
