/* Recording (record/record_file.h): the record file's strict reader, the profile it
 * becomes (exact bytes, both formats), merging a previous recording, and where
 * the profile may be written. */
#include <errno.h>
#include <fcntl.h>
#include <seccomp.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../../hook/record/record_internal.h"
#include "record/record_file.h"
#include "shared/arches.h"
#include "shared/cleanup.h"
#include "tap.h"
#include "unit.h"

/* The temporary directory the tests share, removed at exit. */
static char tmpl[] = "/tmp/test_record.XXXXXX";

#define MAGIC TSYNC_RECORD_MAGIC

static struct tsync_record_set *parse(const char *text, struct tsync_err *err)
{
        struct tsync_record_set *set = NULL;
        (void)tsync_record_parse(text, strlen(text), &set, err);
        return set;
}

static void test_record_parse_accepts_the_format(void)
{
        struct tsync_err err = { 0 };
        struct tsync_record_set *set = parse(MAGIC, &err);
        tap_ok(set && set->n == 0, "test_record_parse_magic_alone_is_an_empty_recording (%s)", err.msg);
        tsync_record_set_free(set);

        set = parse(MAGIC "c000003e 59\n40000003 11\nc000003e 0\nc000003e 59\nc000003e 1073742344\n"
                          "c000003e 4294967295\n",
                    &err);
        if (!tap_ok(set != NULL, "test_record_parse_good_lines (%s)", err.msg))
                return;
        /* Sorted by (ABI token, number), the duplicate dropped. */
        tap_ok(set->n == 5, "test_record_parse_drops_duplicates (%zu calls)", set->n);
        tap_ok(set->n == 5 && set->calls[0].abi == SCMP_ARCH_X86 && set->calls[0].nr == 11,
               "test_record_parse_tags_i386_as_x86");
        tap_ok(set->n == 5 && set->calls[1].abi == SCMP_ARCH_X32 && set->calls[1].nr == 1073742344,
               "test_record_parse_tags_the_x32_bit_as_x32_keeping_the_bit");
        tap_ok(set->n == 5 && set->calls[3].abi == SCMP_ARCH_X86_64 && set->calls[3].nr == 0 &&
                       set->calls[4].abi == SCMP_ARCH_X86_64 && set->calls[4].nr == 59,
               "test_record_parse_tags_x86_64");
        /* syscall(-1) is a call too: x86_64's number with the x32 bit set. */
        tap_ok(set->n == 5 && set->calls[2].abi == SCMP_ARCH_X32 && set->calls[2].nr == UINT32_MAX,
               "test_record_parse_keeps_a_number_up_to_uint32_max");
        tsync_record_set_free(set);
}

/* A row of the tables of refused inputs: a part of the refusal's message. */
struct refusal {
        const char *name;
        const char *input;
        const char *message;
};

static void test_record_parse_refuses_junk(void)
{
        static const struct refusal cases[] = {
                { "empty", "", "line 1: not a record file" },
                { "other_magic", "oci-seccomp-tsync-record 2\n", "line 1: not a record file" },
                { "magic_without_newline", "oci-seccomp-tsync-record 1", "line 1: not a record file" },
                { "uppercase_hex", MAGIC "C000003E 59\n", "line 2: the architecture is not 8 lowercase hex digits" },
                { "short_hex", MAGIC "c00003e 59\n", "line 2: not \"<8 hex digits> <number>\"" },
                { "two_spaces", MAGIC "c000003e  59\n", "line 2: the syscall number is not a decimal number" },
                { "no_number", MAGIC "c000003e \n", "line 2: not \"<8 hex digits> <number>\"" },
                { "sign", MAGIC "c000003e -1\n", "line 2: the syscall number is not a decimal number" },
                { "leading_zero", MAGIC "c000003e 059\n", "line 2: the syscall number has a leading zero" },
                { "above_uint32", MAGIC "c000003e 4294967296\n", "line 2: syscall number 4294967296 is above" },
                { "eleven_digits", MAGIC "c000003e 12345678901\n", "line 2: longer than 20 bytes" },
                { "overlong_line", MAGIC "c000003e 59 and more junk\n", "line 2: longer than 20 bytes" },
                { "cut_short", MAGIC "c000003e 59\nc000003e 6", "line 3: no newline at its end" },
                { "blank_line", MAGIC "\n", "line 2: not \"<8 hex digits> <number>\"" },
                { "carriage_return", MAGIC "c000003e 59\r\n", "line 2: the syscall number is not a decimal number" },
                { "trailing_space", MAGIC "c000003e 59 \n", "line 2: the syscall number is not a decimal number" },
                { "unknown_arch", MAGIC "12345678 1\n", "line 2: architecture 12345678 is not one libseccomp" },
                { "x32_token_is_no_audit_arch", MAGIC "4000003e 1\n", "line 2: architecture 4000003e is not one" },
                { "another_byte_order", MAGIC "c000003e 59\n00000008 4\n",
                  "line 3: SCMP_ARCH_MIPS cannot be in one filter with this machine's" },
                { "third_line", MAGIC "c000003e 1\nc000003e 2\nzzz\n", "line 4: not \"<8 hex digits> <number>\"" },
        };
        for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
                struct tsync_err err = { 0 };
                struct tsync_record_set *set = parse(cases[i].input, &err);
                tap_ok(!set && err.code && strstr(err.msg, cases[i].message) != NULL,
                       "test_record_parse_refuses_%s (%s)", cases[i].name, err.msg);
                tsync_record_set_free(set);
        }

        /* A NUL inside a line is junk, not the end of the file. */
        struct tsync_err err = { 0 };
        struct tsync_record_set *set = NULL;
        static const char with_nul[] = MAGIC "c000003e 5\0\n";
        int r = tsync_record_parse(with_nul, sizeof(with_nul) - 1, &set, &err);
        tap_ok(r == -EINVAL && !set && strstr(err.msg, "line 2: the syscall number is not a decimal number"),
               "test_record_parse_refuses_a_nul_byte (%s)", err.msg);

        /* More than TSYNC_RECORD_MAX_BYTES is refused before reading a line. */
        size_t big = TSYNC_RECORD_MAX_BYTES + 1;
        char *text = malloc(big);
        if (text) {
                memset(text, 'x', big);
                memcpy(text, MAGIC, strlen(MAGIC));
                r = tsync_record_parse(text, big, &set, &err);
                tap_ok(r == -EFBIG && strstr(err.msg, "more than a recording may hold"),
                       "test_record_parse_refuses_more_than_the_limit (%s)", err.msg);
                /* Exactly the limit, in good lines, is read. */
                size_t len = strlen(MAGIC);
                while (len + 12 <= TSYNC_RECORD_MAX_BYTES) {
                        memcpy(text + len, "c000003e 59\n", 12);
                        len += 12;
                }
                set = NULL;
                r = tsync_record_parse(text, len, &set, &err);
                tap_ok(r == 0 && set && set->n == 1, "test_record_parse_reads_up_to_the_limit (%s)", err.msg);
                tsync_record_set_free(set);
                free(text);
        }
}

/* What record_profile.c adds for the runtime and the init (sorted, as in the
 * profile); a change there shows here. */
#define EXTRA_NAMES                                                                                                    \
        "                \"capget\",\n"                                                                                \
        "                \"capset\",\n"                                                                                \
        "                \"chdir\",\n"                                                                                 \
        "                \"clone\",\n"                                                                                 \
        "                \"clone3\",\n"                                                                                \
        "                \"close\",\n"                                                                                 \
        "                \"close_range\",\n"                                                                           \
        "                \"epoll_ctl\",\n"                                                                             \
        "                \"epoll_pwait\",\n"                                                                           \
        "                \"exit_group\",\n"                                                                            \
        "                \"faccessat\",\n"                                                                             \
        "                \"faccessat2\",\n"                                                                            \
        "                \"fcntl\",\n"                                                                                 \
        "                \"fstat\",\n"                                                                                 \
        "                \"fstatfs\",\n"                                                                               \
        "                \"futex\",\n"                                                                                 \
        "                \"getcwd\",\n"                                                                                \
        "                \"getdents64\",\n"                                                                            \
        "                \"getpid\",\n"                                                                                \
        "                \"getppid\",\n"                                                                               \
        "                \"gettid\",\n"                                                                                \
        "                \"kill\",\n"                                                                                  \
        "                \"madvise\",\n"                                                                               \
        "                \"mmap\",\n"                                                                                  \
        "                \"munmap\",\n"                                                                                \
        "                \"nanosleep\",\n"                                                                             \
        "                \"newfstatat\",\n"                                                                            \
        "                \"openat\",\n"                                                                                \
        "                \"openat2\",\n"                                                                               \
        "                \"prctl\",\n"                                                                                 \
        "                \"read\",\n"                                                                                  \
        "                \"readlinkat\",\n"                                                                            \
        "                \"rt_sigaction\",\n"                                                                          \
        "                \"rt_sigprocmask\",\n"                                                                        \
        "                \"rt_sigreturn\",\n"                                                                          \
        "                \"rt_sigtimedwait\",\n"                                                                       \
        "                \"sched_yield\",\n"                                                                           \
        "                \"seccomp\",\n"                                                                               \
        "                \"setgid\",\n"                                                                                \
        "                \"setgroups\",\n"                                                                             \
        "                \"setresgid\",\n"                                                                             \
        "                \"setresuid\",\n"                                                                             \
        "                \"setuid\",\n"                                                                                \
        "                \"sigaltstack\",\n"                                                                           \
        "                \"tgkill\",\n"                                                                                \
        "                \"wait4\"\n"

/* The names of RECORD's calls, as both formats list them. */
#define RECORDED_NAMES                                                                                                 \
        "                \"execve\",\n"                                                                                \
        "                \"mkdir\",\n"                                                                                 \
        "                \"write\"\n"

/* x86_64: execve 59, mkdir 83; i386: write 4; x32: execve, and syscall(-1), which has no name. */
#define RECORD MAGIC "c000003e 59\nc000003e 83\n40000003 4\nc000003e 1073742344\nc000003e 4294967295\n"

static const char oci_expected[] = "{\n"
                                   "    \"defaultAction\": \"SCMP_ACT_ERRNO\",\n"
                                   "    \"defaultErrnoRet\": 1,\n"
                                   "    \"architectures\": [\n"
                                   "        \"SCMP_ARCH_X86_64\",\n"
                                   "        \"SCMP_ARCH_X32\",\n"
                                   "        \"SCMP_ARCH_X86\"\n"
                                   "    ],\n"
                                   "    \"syscalls\": [\n"
                                   "        {\n"
                                   "            \"names\": [\n" RECORDED_NAMES "            ],\n"
                                   "            \"action\": \"SCMP_ACT_ALLOW\"\n"
                                   "        },\n"
                                   "        {\n"
                                   "            \"names\": [\n" EXTRA_NAMES "            ],\n"
                                   "            \"action\": \"SCMP_ACT_ALLOW\"\n"
                                   "        }\n"
                                   "    ]\n"
                                   "}\n";

static const char docker_expected[] =
        "{\n"
        "    \"defaultAction\": \"SCMP_ACT_ERRNO\",\n"
        "    \"defaultErrnoRet\": 38,\n"
        "    \"archMap\": [\n"
        "        {\n"
        "            \"architecture\": \"SCMP_ARCH_X86_64\",\n"
        "            \"subArchitectures\": [\n"
        "                \"SCMP_ARCH_X32\",\n"
        "                \"SCMP_ARCH_X86\"\n"
        "            ]\n"
        "        }\n"
        "    ],\n"
        "    \"syscalls\": [\n"
        "        {\n"
        "            \"names\": [\n" RECORDED_NAMES "            ],\n"
        "            \"action\": \"SCMP_ACT_ALLOW\",\n"
        "            \"comment\": \"The workload's calls, recorded by oci-seccomp-tsync (every thread and child, each "
        "ABI listed). Recorded, but with no name in this libseccomp, so not allowed: SCMP_ARCH_X32 4294967295.\"\n"
        "        },\n"
        "        {\n"
        "            \"names\": [\n" EXTRA_NAMES "            ],\n"
        "            \"action\": \"SCMP_ACT_ALLOW\",\n"
        "            \"comment\": \"Not recorded: what runc and crun call between their seccomp load and the exec of "
        "the container's process, and what seccomp-tsync-init calls around its own load, so that the profile works "
        "as linux.seccomp and as a layer.\"\n"
        "        }\n"
        "    ]\n"
        "}\n";

/* The profile of text under req, or NULL (err says why). */
static char *profile_of(const char *text, const struct tsync_record_request *req, struct tsync_err *err)
{
        struct tsync_record_set *set = parse(text, err);
        char *out = NULL;
        size_t len = 0;
        if (set && tsync_record_profile(set, req, &out, &len, err) == 0 && strlen(out) != len) {
                tap_diag("profile length %zu, strlen %zu", len, strlen(out));
                free(out);
                out = NULL;
        }
        tsync_record_set_free(set);
        return out;
}

static int same_text(const char *got, const char *want, const char *name)
{
        int ok = got && strcmp(got, want) == 0;
        if (!ok && got) {
                size_t i = 0;
                while (got[i] && got[i] == want[i])
                        i++;
                tap_diag("%s: differs at byte %zu: got \"%.60s\", want \"%.60s\"", name, i, got + i, want + i);
        }
        return ok;
}

static void test_record_profile_bytes(void)
{
        if (seccomp_arch_native() != SCMP_ARCH_X86_64) {
                tap_skip("the expected text is x86_64's", "test_record_profile_bytes");
                return;
        }
        struct tsync_err err = { 0 };
        struct tsync_record_request req = { .format = TSYNC_RECORD_FORMAT_OCI, .errno_ret = EPERM };
        char *got = profile_of(RECORD, &req, &err);
        tap_ok(same_text(got, oci_expected, "oci"), "test_record_profile_oci_exact_bytes (%s)", err.msg);
        free(got);

        req = (struct tsync_record_request){ .format = TSYNC_RECORD_FORMAT_DOCKER, .errno_ret = ENOSYS };
        got = profile_of(RECORD, &req, &err);
        tap_ok(same_text(got, docker_expected, "docker"), "test_record_profile_docker_exact_bytes (%s)", err.msg);
        free(got);

        /* The same calls in another order, twice over: the same bytes. */
        req = (struct tsync_record_request){ .format = TSYNC_RECORD_FORMAT_OCI, .errno_ret = EPERM };
        char *a = profile_of(MAGIC "c000003e 4294967295\nc000003e 1073742344\n40000003 4\nc000003e 83\nc000003e 59\n"
                                   "c000003e 59\n",
                             &req, &err);
        char *b = profile_of(RECORD, &req, &err);
        tap_ok(a && b && strcmp(a, b) == 0 && strcmp(a, oci_expected) == 0,
               "test_record_profile_is_stable_whatever_the_order");
        free(a);
        free(b);
}

static void test_record_profile_errno_and_refusals(void)
{
        struct tsync_err err = { 0 };
        struct tsync_record_request req = { .format = TSYNC_RECORD_FORMAT_OCI, .errno_ret = ENOSYS };
        char *got = profile_of(MAGIC "c000003e 59\n", &req, &err);
        tap_ok(got && strstr(got, "\"defaultErrnoRet\": 38,\n"), "test_record_profile_enosys_is_38");
        free(got);

        req.errno_ret = 0;
        got = profile_of(MAGIC "c000003e 59\n", &req, &err);
        tap_ok(got && strstr(got, "\"defaultErrnoRet\": 1,\n"), "test_record_profile_errno_0_means_the_default_eperm");
        free(got);

        req.errno_ret = EACCES;
        got = profile_of(MAGIC "c000003e 59\n", &req, &err);
        tap_ok(!got && err.code == EINVAL &&
                       strstr(err.msg, "errno 13: a recorded profile answers EPERM (1) or ENOSYS"),
               "test_record_profile_refuses_another_errno (%s)", err.msg);
        free(got);

        req.errno_ret = EPERM;
        req.format = (enum tsync_record_format)7;
        got = profile_of(MAGIC "c000003e 59\n", &req, &err);
        tap_ok(!got && strstr(err.msg, "profile format 7 is unknown"), "test_record_profile_refuses_an_unknown_format");
        free(got);

        req.format = TSYNC_RECORD_FORMAT_OCI;
        got = profile_of(MAGIC, &req, &err);
        tap_ok(!got && err.code == ENODATA && strstr(err.msg, "the recording holds no call with a name"),
               "test_record_profile_refuses_an_empty_recording (%s)", err.msg);
        free(got);

        /* Only a number without a name: nothing to allow either. */
        got = profile_of(MAGIC "c000003e 4294967295\n", &req, &err);
        tap_ok(!got && err.code == ENODATA, "test_record_profile_refuses_only_unnamed_calls (%s)", err.msg);
        free(got);

        /* What poststop can warn about, since the OCI form has no comment to say it. */
        struct tsync_record_set *set = parse(MAGIC "c000003e 59\nc000003e 4294967295\n40000003 4294967295\n", &err);
        char *unnamed = (char *)"unset";
        tap_ok(set && tsync_record_unnamed(set, &unnamed, &err) == 0 && unnamed &&
                       strcmp(unnamed, "SCMP_ARCH_X86 4294967295, SCMP_ARCH_X32 4294967295") == 0,
               "test_record_unnamed_lists_the_calls_left_out (%s)", unnamed ? unnamed : "NULL");
        free(unnamed);
        tsync_record_set_free(set);
        set = parse(MAGIC "c000003e 59\n", &err);
        unnamed = (char *)"unset";
        tap_ok(set && tsync_record_unnamed(set, &unnamed, &err) == 0 && unnamed == NULL,
               "test_record_unnamed_is_null_when_every_call_has_a_name");
        tsync_record_set_free(set);

        /* The native ABI's companion alone (i386 on x86_64, arm on aarch64) still lists the native
         * one first. */
        const struct tsync_arch_def *native = tsync_arch_by_token(seccomp_arch_native()), *companion = NULL;
        size_t n_rows;
        const struct tsync_arch_def *rows = tsync_arches(&n_rows);
        for (size_t i = 0; native && i < n_rows && !companion; i++)
                if (rows[i].companion_of == native->token && rows[i].token == rows[i].audit)
                        companion = &rows[i];
        if (companion) {
                char line[64], want[160];
                (void)snprintf(line, sizeof(line), "%s%08x 4\n", MAGIC, companion->audit);
                (void)snprintf(want, sizeof(want), "\"architectures\": [\n        \"%s\",\n        \"%s\"\n    ]",
                               native->spec_name, companion->spec_name);
                got = profile_of(line, &req, &err);
                tap_ok(got && strstr(got, want), "test_record_profile_lists_the_native_abi_and_each_used");
                free(got);
        } else {
                tap_skip("this machine's ABI has no companion",
                         "test_record_profile_lists_the_native_abi_and_each_used");
        }

        /* A recorded call that is also one the runtime makes is in the recorded rule only. */
        got = profile_of(MAGIC "c000003e 0\nc000003e 3\n", &req, &err);
        const char *second = got ? strstr(got, "},\n        {") : NULL;
        tap_ok(got && second && strstr(got, "\"close\"") < second && !strstr(second, "\"close\""),
               "test_record_profile_lists_a_name_once");
        free(got);
}

static void test_record_profile_merges(void)
{
        struct tsync_err err = { 0 };
        const char *a = MAGIC "c000003e 59\nc000003e 0\n";
        const char *b = MAGIC "c000003e 1\n40000003 4\n";
        const char *both = MAGIC "c000003e 59\nc000003e 0\nc000003e 1\n40000003 4\n";

        for (int docker_in = 0; docker_in < 2; docker_in++)
                for (int docker_out = 0; docker_out < 2; docker_out++) {
                        struct tsync_record_request req = {
                                .format = docker_in ? TSYNC_RECORD_FORMAT_DOCKER : TSYNC_RECORD_FORMAT_OCI,
                                .errno_ret = EPERM,
                        };
                        char *pa = profile_of(a, &req, &err);
                        char *path = pa ? unit_tmp_file(docker_in ? "a-docker.json" : "a-oci.json", pa) : NULL;
                        req = (struct tsync_record_request){
                                .format = docker_out ? TSYNC_RECORD_FORMAT_DOCKER : TSYNC_RECORD_FORMAT_OCI,
                                .errno_ret = ENOSYS,
                        };
                        char *want = profile_of(both, &req, &err);
                        char *want_a = profile_of(a, &req, &err);
                        req.input = path;
                        char *got = path ? profile_of(b, &req, &err) : NULL;
                        tap_ok(want && same_text(got, want, "merge"),
                               "test_record_profile_merge_adds_up_%s_into_%s (%s)", docker_in ? "docker" : "oci",
                               docker_out ? "docker" : "oci", err.msg);
                        /* Read back with nothing new: the same profile, the added rule not taken as recorded. */
                        free(got);
                        got = path ? profile_of(MAGIC "c000003e 59\n", &req, &err) : NULL;
                        tap_ok(want_a && same_text(got, want_a, "merge"),
                               "test_record_profile_merge_of_its_own_output_is_a_fixed_point_%s_into_%s (%s)",
                               docker_in ? "docker" : "oci", docker_out ? "docker" : "oci", err.msg);
                        free(got);
                        free(want);
                        free(want_a);
                        free(path);
                        free(pa);
                }

        /* An empty recording with a previous one: that one's profile. */
        struct tsync_record_request req = { .format = TSYNC_RECORD_FORMAT_OCI, .errno_ret = EPERM };
        char *pa = profile_of(a, &req, &err);
        char *path = pa ? unit_tmp_file("again.json", pa) : NULL;
        req.input = path;
        char *got = path ? profile_of(MAGIC, &req, &err) : NULL;
        tap_ok(pa && got && strcmp(pa, got) == 0, "test_record_profile_merge_with_an_empty_recording (%s)", err.msg);
        free(got);
        free(path);
        free(pa);
}

static void test_record_profile_refuses_inputs_it_cannot_carry(void)
{
        static const struct refusal cases[] = {
                { "not_json", "{", "" },
                { "an_array", "[]", "(root): expected object" },
                { "a_comment_in_oci",
                  "{\"defaultAction\": \"SCMP_ACT_ERRNO\", \"syscalls\": [{\"names\": [\"read\"], \"action\": "
                  "\"SCMP_ACT_ALLOW\", \"comment\": \"x\"}]}",
                  "syscalls[0].comment: unknown key" },
                { "an_unknown_action",
                  "{\"defaultAction\": \"SCMP_ACT_ERRNO\", \"syscalls\": [{\"names\": [\"read\"], \"action\": "
                  "\"SCMP_ACT_FOO\"}]}",
                  "action 'SCMP_ACT_FOO' is unknown" },
                { "flags",
                  "{\"defaultAction\": \"SCMP_ACT_ERRNO\", \"flags\": [\"SECCOMP_FILTER_FLAG_LOG\"], \"syscalls\": "
                  "[]}",
                  "flags: a recorded profile carries no flags" },
                { "notify",
                  "{\"defaultAction\": \"SCMP_ACT_ERRNO\", \"listenerPath\": \"/run/agent.sock\", \"syscalls\": "
                  "[{\"names\": [\"mkdir\"], \"action\": \"SCMP_ACT_NOTIFY\"}]}",
                  "SCMP_ACT_NOTIFY or listenerPath: a recorded profile hands no listener on" },
                { "trace",
                  "{\"defaultAction\": \"SCMP_ACT_ERRNO\", \"syscalls\": [{\"names\": [\"mkdir\"], \"action\": "
                  "\"SCMP_ACT_TRACE\"}]}",
                  "SCMP_ACT_TRACE: a recording cannot hold it" },
                { "no_names",
                  "{\"defaultAction\": \"SCMP_ACT_ERRNO\", \"syscalls\": [{\"names\": [], \"action\": "
                  "\"SCMP_ACT_ALLOW\"}]}",
                  "syscalls[0].names: must name at least one syscall" },
                { "unknown_arch",
                  "{\"defaultAction\": \"SCMP_ACT_ERRNO\", \"architectures\": [\"SCMP_ARCH_VAX\"], \"syscalls\": "
                  "[{\"names\": [\"read\"], \"action\": \"SCMP_ACT_ALLOW\"}]}",
                  "architectures[0]: architecture 'SCMP_ARCH_VAX' is unknown" },
                { "another_byte_order",
                  "{\"defaultAction\": \"SCMP_ACT_ERRNO\", \"architectures\": [\"SCMP_ARCH_S390X\"], \"syscalls\": "
                  "[{\"names\": [\"read\"], \"action\": \"SCMP_ACT_ALLOW\"}]}",
                  "SCMP_ARCH_S390X cannot be in one filter with this machine's" },
                { "bad_arch_map",
                  "{\"defaultAction\": \"SCMP_ACT_ERRNO\", \"archMap\": [{\"architecture\": \"SCMP_ARCH_X86_64\", "
                  "\"subArchitectures\": [1]}], \"syscalls\": [{\"names\": [\"read\"], \"action\": "
                  "\"SCMP_ACT_ALLOW\"}]}",
                  "archMap[0].subArchitectures[0]: expected string" },
                { "errno_too_large",
                  "{\"defaultAction\": \"SCMP_ACT_ERRNO\", \"defaultErrnoRet\": 5000, \"syscalls\": [{\"names\": "
                  "[\"read\"], \"action\": \"SCMP_ACT_ALLOW\"}]}",
                  "defaultErrnoRet" },
        };
        for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
                struct tsync_err err = { 0 };
                char *path = unit_tmp_file("input.json", cases[i].input);
                struct tsync_record_request req = { .format = TSYNC_RECORD_FORMAT_OCI,
                                                    .errno_ret = EPERM,
                                                    .input = path };
                char *got = path ? profile_of(MAGIC "c000003e 59\n", &req, &err) : NULL;
                tap_ok(path && !got && err.code && strstr(err.msg, path) == err.msg &&
                               strstr(err.msg, cases[i].message) != NULL,
                       "test_record_profile_refuses_input_%s (%s)", cases[i].name, err.msg);
                free(got);
                free(path);
        }
        struct tsync_err err = { 0 };
        struct tsync_record_request req = { .format = TSYNC_RECORD_FORMAT_OCI,
                                            .errno_ret = EPERM,
                                            .input = "/nonexistent/recording.json" };
        char *got = profile_of(MAGIC "c000003e 59\n", &req, &err);
        tap_ok(!got && err.code == ENOENT && strstr(err.msg, "/nonexistent/recording.json"),
               "test_record_profile_refuses_a_missing_input (%s)", err.msg);
        free(got);
}

static int touch(const char *path)
{
        int fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
        return fd < 0 ? -1 : close(fd);
}

static char *at(const char *rel)
{
        char *path = NULL;
        if (asprintf(&path, "%s/%s", unit_tmp, rel) < 0)
                abort();
        return path;
}

static void test_record_check_path(void)
{
        char *dir = at("paths"), *real = at("paths/real"), *link = at("paths/link"), *rootfs = at("paths/rootfs"),
             *rootfs_link = at("paths/rootfs-link"), *file = at("paths/real/p.json"),
             *file_link = at("paths/real/l.json");
        int ok = mkdir(dir, 0755) == 0 && mkdir(real, 0755) == 0 && symlink("real", link) == 0 &&
                 mkdir(rootfs, 0755) == 0 && symlink("rootfs", rootfs_link) == 0 && touch(file) == 0 &&
                 symlink("p.json", file_link) == 0;
        if (!tap_ok(ok, "test_record_check_path: setup")) {
                free(dir);
                return;
        }
        char *cases_path[] = {
                at("paths/real/new.json"),
                at("paths/real/p.json"),
                at("paths//real///new.json"),
                at("paths/link/new.json"),
                at("paths/real/l.json"),
                at("paths/none/new.json"),
                at("paths/real/../real/new.json"),
                at("paths/rootfs/out.json"),
                at("paths/rootfs/etc/out.json"),
                at("paths/rootfs//out.json"),
                at("paths/rootfs-other.json"),
                at("paths/real/"),
                at("paths/real"),
                at("paths/real/./new.json"),
        };
        static const struct {
                const char *name;
                bool output;
                bool rootfs_link;
                const char *message; /* NULL: accepted */
        } cases[] = {
                { "accepts_a_new_file", true, false, NULL },
                { "accepts_an_existing_regular_file", true, false, NULL },
                { "accepts_doubled_slashes", true, false, NULL },
                { "refuses_a_symlinked_directory", true, false, "/paths/link' is a symbolic link" },
                { "refuses_a_symlink_as_the_file", true, false, "/paths/real/l.json' is a symbolic link" },
                { "refuses_a_missing_directory", true, false, "/paths/none' does not exist" },
                { "refuses_dot_dot", true, false, "'.' and '..' are refused" },
                { "refuses_a_file_in_rootfs", true, false, "is under the container's rootfs" },
                { "refuses_deeper_in_rootfs", true, false, "is under the container's rootfs" },
                { "refuses_rootfs_with_doubled_slashes", true, false, "is under the container's rootfs" },
                { "accepts_a_sibling_of_rootfs", true, false, NULL },
                { "refuses_a_directory_path", true, false, "names a directory, not a file" },
                { "refuses_a_directory", true, false, "is not a regular file" },
                { "refuses_dot", true, false, "'.' and '..' are refused" },
        };
        for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
                struct tsync_err err = { 0 };
                int r = tsync_record_check_path(cases_path[i], cases[i].output, rootfs, &err);
                if (cases[i].message)
                        tap_ok(r < 0 && strstr(err.msg, cases[i].message), "test_record_check_path_%s (%s)",
                               cases[i].name, err.msg);
                else
                        tap_ok(r == 0, "test_record_check_path_%s (%s)", cases[i].name, err.msg);
        }
        struct tsync_err err = { 0 };
        char *in_rootfs = at("paths/rootfs/out.json");
        int r = tsync_record_check_path(in_rootfs, true, rootfs_link, &err);
        tap_ok(r == -EPERM && strstr(err.msg, "under the container's rootfs"),
               "test_record_check_path_compares_the_canonical_rootfs (%s)", err.msg);
        r = tsync_record_check_path("p.json", true, NULL, &err);
        tap_ok(r == -EINVAL && strstr(err.msg, "'p.json' is not an absolute path"),
               "test_record_check_path_refuses_a_relative_path (%s)", err.msg);
        r = tsync_record_check_path(cases_path[0], false, NULL, &err);
        tap_ok(r == -ENOENT, "test_record_check_path_wants_an_input_to_exist (%s)", err.msg);
        r = tsync_record_check_path(file, false, NULL, &err);
        tap_ok(r == 0, "test_record_check_path_accepts_an_existing_input (%s)", err.msg);
        r = tsync_record_check_path(file_link, false, NULL, &err);
        tap_ok(r == -ELOOP, "test_record_check_path_refuses_a_symlink_as_input (%s)", err.msg);
        r = tsync_record_check_path(cases_path[0], true, "rootfs", &err);
        tap_ok(r == -EINVAL && strstr(err.msg, "rootfs 'rootfs' is not an absolute path"),
               "test_record_check_path_wants_an_absolute_rootfs (%s)", err.msg);
        if (chown(file, 4242, 4242) == 0) {
                r = tsync_record_check_path(file, true, NULL, &err);
                tap_ok(r == -EPERM && strstr(err.msg, "owned by uid 4242, not by us"),
                       "test_record_check_path_refuses_to_replace_another_users_file (%s)", err.msg);
                r = tsync_record_check_path(file, false, NULL, &err);
                tap_ok(r == 0, "test_record_check_path_reads_another_users_file (%s)", err.msg);
                (void)chown(file, geteuid(), getegid());
        } else {
                tap_skip("chown needs root", "test_record_check_path_refuses_to_replace_another_users_file");
        }
        r = tsync_record_check_path("/", true, NULL, &err);
        tap_ok(r == -EISDIR, "test_record_check_path_refuses_the_root (%s)", err.msg);

        free(in_rootfs);
        for (size_t i = 0; i < ARRAY_SIZE(cases_path); i++)
                free(cases_path[i]);
        free(dir);
        free(real);
        free(link);
        free(rootfs);
        free(rootfs_link);
        free(file);
        free(file_link);
}

static char *read_all(const char *path)
{
        FILE *f = fopen(path, "r");
        if (!f)
                return NULL;
        char *buf = calloc(1, 4096);
        if (buf)
                (void)fread(buf, 1, 4095, f);
        fclose(f);
        return buf;
}

static void test_record_write(void)
{
        char *dir = at("write"), *out = at("write/p.json"), *rootfs = at("write/rootfs"),
             *in_rootfs = at("write/rootfs/p.json"), *link = at("write/l.json");
        struct tsync_err err = { 0 };
        mode_t old = umask(077);
        int ok = mkdir(dir, 0755) == 0 && mkdir(rootfs, 0755) == 0 && symlink("p.json", link) == 0;
        tap_ok(ok, "test_record_write: setup");

        int r = tsync_record_write(out, "first\n", 6, rootfs, 0, &err);
        char *got = read_all(out);
        struct stat st;
        tap_ok(r == 0 && got && strcmp(got, "first\n") == 0, "test_record_write_writes (%s)", err.msg);
        tap_ok(stat(out, &st) == 0 && (st.st_mode & 07777) == 0644, "test_record_write_mode_0644_whatever_the_umask");
        free(got);

        r = tsync_record_write(out, "second\n", 7, rootfs, 0, &err);
        got = read_all(out);
        tap_ok(r == 0 && got && strcmp(got, "second\n") == 0, "test_record_write_replaces (%s)", err.msg);
        free(got);

        FILE *p;
        char line[32] = "";
        char *cmd = NULL;
        if (asprintf(&cmd, "ls -a1 '%s' | wc -l", dir) >= 0 && (p = popen(cmd, "r"))) {
                (void)fgets(line, sizeof(line), p);
                pclose(p);
        }
        free(cmd);
        /* ".", "..", p.json, rootfs, l.json: no temp file left. */
        tap_ok(atoi(line) == 5, "test_record_write_leaves_no_temp_file (%d entries)", atoi(line));

        r = tsync_record_write(in_rootfs, "x", 1, rootfs, 0, &err);
        tap_ok(r == -EPERM && access(in_rootfs, F_OK) != 0, "test_record_write_refuses_rootfs (%s)", err.msg);
        r = tsync_record_write(link, "x", 1, rootfs, 0, &err);
        got = read_all(out);
        tap_ok(r == -ELOOP && got && strcmp(got, "second\n") == 0, "test_record_write_refuses_a_symlink (%s)", err.msg);
        free(got);
        r = tsync_record_write("relative.json", "x", 1, NULL, 0, &err);
        tap_ok(r == -EINVAL, "test_record_write_refuses_a_relative_path (%s)", err.msg);

        /* TSYNC_RECORD_NEW (the wrapper's record-dir): whatever is at the
         * name stays as it was, and a new name is written. */
        r = tsync_record_write(out, "third\n", 6, NULL, TSYNC_RECORD_NEW, &err);
        got = read_all(out);
        tap_ok(r == -EEXIST && got && strcmp(got, "second\n") == 0 && strstr(err.msg, "never replaces"),
               "test_record_write_new_never_replaces_a_file (%s)", err.msg);
        free(got);
        r = tsync_record_check_path(out, TSYNC_RECORD_OUTPUT | TSYNC_RECORD_NEW, NULL, &err);
        tap_ok(r == -EEXIST, "test_record_check_path_new_refuses_an_existing_file (%s)", err.msg);
        r = tsync_record_check_path(out, TSYNC_RECORD_OUTPUT, NULL, &err);
        tap_ok(r == 0, "test_record_check_path_replaces_without_new (%s)", err.msg);
        char *fifo = at("write/fifo"), *sub = at("write/sub"), *fresh = at("write/fresh.json");
        ok = mkfifo(fifo, 0600) == 0 && mkdir(sub, 0700) == 0;
        r = tsync_record_write(link, "x", 1, NULL, TSYNC_RECORD_NEW, &err);
        tap_ok(r == -EEXIST && readlink(link, line, sizeof(line)) == 6,
               "test_record_write_new_never_replaces_a_symlink (%s)", err.msg);
        r = tsync_record_write(fifo, "x", 1, NULL, TSYNC_RECORD_NEW, &err);
        tap_ok(ok && r == -EEXIST && lstat(fifo, &st) == 0 && S_ISFIFO(st.st_mode),
               "test_record_write_new_never_replaces_a_fifo (%s)", err.msg);
        r = tsync_record_write(sub, "x", 1, NULL, TSYNC_RECORD_NEW, &err);
        tap_ok(ok && r == -EEXIST && lstat(sub, &st) == 0 && S_ISDIR(st.st_mode),
               "test_record_write_new_never_replaces_a_directory (%s)", err.msg);
        r = tsync_record_write(fresh, "new\n", 4, NULL, TSYNC_RECORD_NEW, &err);
        got = read_all(fresh);
        tap_ok(r == 0 && got && strcmp(got, "new\n") == 0, "test_record_write_new_writes_a_new_name (%s)", err.msg);
        free(got);
        free(fifo);
        free(sub);
        free(fresh);
        umask(old);
        free(dir);
        free(out);
        free(rootfs);
        free(in_rootfs);
        free(link);
}

int main(void)
{
        static void (*const tests[])(void) = {
                test_record_parse_accepts_the_format,
                test_record_parse_refuses_junk,
                test_record_profile_bytes,
                test_record_profile_errno_and_refusals,
                test_record_profile_merges,
                test_record_profile_refuses_inputs_it_cannot_carry,
                test_record_check_path,
                test_record_write,
        };
        return unit_main_in_tmpdir(tmpl, tests, ARRAY_SIZE(tests));
}
