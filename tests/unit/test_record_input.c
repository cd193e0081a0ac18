/* A recording's `if:` that is not one of our recordings (record_merge.c): any
 * profile we parse is the base, kept rule by rule; a call it blocks stays
 * blocked, a recorded call no rule names is added; what cannot be carried is
 * refused before anything runs (tsync_record_check_input). The output is read
 * back with the profile readers layers use, so what is checked is what a
 * runtime would load. */
#include <errno.h>
#include <seccomp.h>
#include <stdio.h>
#include <string.h>

#include "record/record_file.h"
#include "shared/cleanup.h"
#include "tap.h"
#include "translate/profile.h"
#include "translate/source.h"
#include "unit.h"

/* The temporary directory the tests share, removed at exit. */
static char tmpl[] = "/tmp/test_record_input.XXXXXX";

#define MAGIC TSYNC_RECORD_MAGIC
/* x86_64: mkdir 83, execve 59, personality 135, reboot 169, chroot 161, kexec_load 246. */
#define MKDIR       "c000003e 83\n"
#define EXECVE      "c000003e 59\n"
#define PERSONALITY "c000003e 135\n"
#define REBOOT      "c000003e 169\n"
#define CHROOT      "c000003e 161\n"
#define KEXEC_LOAD  "c000003e 246\n"

/* oci-seccomp-bpf-hook's example input's shape (test/fixtures/block-mkdir.json):
 * Docker format, every call refused, mkdir by a rule of its own. */
static const char block_mkdir[] = "{\n"
                                  "  \"defaultAction\": \"SCMP_ACT_ERRNO\",\n"
                                  "  \"syscalls\": [\n"
                                  "    { \"names\": [\"mkdir\"], \"action\": \"SCMP_ACT_ERRNO\", \"args\": [],\n"
                                  "      \"comment\": \"\", \"includes\": {}, \"excludes\": {} }\n"
                                  "  ]\n"
                                  "}\n";

/* The profile a recording (text) with base (JSON) as `if:` writes, read back
 * in its format; NULL with err. */
static struct tsync_profile *output_of(const char *recording, const char *base, enum tsync_record_format format,
                                       struct tsync_err *err)
{
        _cleanup_free_ char *path = unit_tmp_file("base.json", base), *text = NULL;
        struct tsync_record_set *set = NULL;
        struct tsync_record_request req = { .format = format, .errno_ret = EPERM, .input = path };
        struct tsync_profile *p = NULL;
        size_t len = 0;
        if (!path || tsync_record_parse(recording, strlen(recording), &set, err) < 0)
                return NULL;
        int r = tsync_record_profile(set, &req, &text, &len, err);
        tsync_record_set_free(set);
        if (r < 0)
                return NULL;
        _cleanup_json_ struct tsync_json *doc = NULL;
        struct tsync_source_opts opts = { .format = format == TSYNC_RECORD_FORMAT_DOCKER ? TSYNC_FORMAT_DOCKER
                                                                                         : TSYNC_FORMAT_OCI,
                                          .have_caps = true,
                                          .keys = TSYNC_KEYS_ERROR };
        if (tsync_json_parse(text, len, NULL, &doc, err) < 0 || tsync_source_from_json(doc, &opts, &p, NULL, err) < 0) {
                tap_diag("the output does not read back: %s\n%s", err->msg, text);
                return NULL;
        }
        return p;
}

/* How p treats name: the number of rules naming it into *n; the action of the
 * last, and whether it has conditions. */
static enum tsync_act treatment(const struct tsync_profile *p, const char *name, size_t *n, bool *conditional)
{
        enum tsync_act act = p->default_action.kind;
        *n = 0;
        *conditional = false;
        for (size_t i = 0; i < p->n_rules; i++)
                for (size_t j = 0; j < p->rules[i].n_names; j++)
                        if (strcmp(p->rules[i].names[j], name) == 0) {
                                (*n)++;
                                act = p->rules[i].action.kind;
                                *conditional = p->rules[i].n_args > 0;
                        }
        return act;
}

static void test_record_input_block_mkdir(void)
{
        for (int docker = 0; docker < 2; docker++) {
                const char *form = docker ? "docker" : "oci";
                struct tsync_err err = { 0 };
                size_t n;
                bool cond;
                struct tsync_profile *p =
                        output_of(MAGIC MKDIR EXECVE, block_mkdir,
                                  docker ? TSYNC_RECORD_FORMAT_DOCKER : TSYNC_RECORD_FORMAT_OCI, &err);
                if (!tap_ok(p != NULL, "test_record_input_block_mkdir_is_a_base_%s (%s)", form, err.msg))
                        continue;
                tap_ok(p->default_action.kind == TSYNC_ACT_ERRNO, "test_record_input_default_refuses_%s", form);
                enum tsync_act act = treatment(p, "mkdir", &n, &cond);
                tap_ok(act == TSYNC_ACT_ERRNO && n == 1,
                       "test_record_input_a_call_blocked_in_the_base_stays_blocked_though_recorded_%s (%zu rules)",
                       form, n);
                act = treatment(p, "execve", &n, &cond);
                tap_ok(act == TSYNC_ACT_ALLOW && n == 1 && !cond,
                       "test_record_input_a_recorded_call_is_added_%s (%zu rules)", form, n);
                act = treatment(p, "reboot", &n, &cond);
                tap_ok(act == TSYNC_ACT_ERRNO && n == 0, "test_record_input_what_neither_has_stays_refused_%s", form);
                tsync_profile_free(p);
        }
}

static void test_record_input_keeps_rules(void)
{
        struct tsync_err err = { 0 };
        size_t n;
        bool cond;
        /* A condition stays the only way the call is allowed, though recorded. */
        struct tsync_profile *p = output_of(
                MAGIC PERSONALITY EXECVE,
                "{\"defaultAction\": \"SCMP_ACT_ERRNO\", \"architectures\": [\"SCMP_ARCH_X86_64\", \"SCMP_ARCH_X86\"], "
                "\"syscalls\": [{\"names\": [\"personality\"], \"action\": \"SCMP_ACT_ALLOW\", \"args\": [{\"index\": "
                "0, \"value\": 0, \"op\": \"SCMP_CMP_EQ\"}]}, {\"names\": [\"read\"], \"action\": \"SCMP_ACT_ERRNO\", "
                "\"errnoRet\": 38}]}",
                TSYNC_RECORD_FORMAT_OCI, &err);
        if (!tap_ok(p != NULL, "test_record_input_conditional_base (%s)", err.msg))
                return;
        enum tsync_act act = treatment(p, "personality", &n, &cond);
        tap_ok(act == TSYNC_ACT_ALLOW && n == 1 && cond, "test_record_input_keeps_a_condition (%zu rules)", n);
        tap_ok(p->rules[0].n_args == 1 && p->rules[0].args[0].op == TSYNC_OP_EQ && p->rules[0].args[0].value == 0,
               "test_record_input_keeps_the_condition_as_written");
        tap_ok(p->n_rules > 1 && p->rules[1].action.kind == TSYNC_ACT_ERRNO && p->rules[1].action.data == 38,
               "test_record_input_keeps_a_rule_errno");
        /* The base's two, and the machine's own where it is neither (aarch64's). */
        uint32_t native = seccomp_arch_native();
        size_t want = native == SCMP_ARCH_X86_64 || native == SCMP_ARCH_X86 ? 2 : 3;
        bool x86_64 = false, x86 = false;
        for (size_t i = 0; i < p->n_arches; i++) {
                x86_64 |= p->arches[i] == SCMP_ARCH_X86_64;
                x86 |= p->arches[i] == SCMP_ARCH_X86;
        }
        bool kept = x86_64 && x86;
        tap_ok(p->n_arches == want && kept, "test_record_input_keeps_the_architectures (%zu)", p->n_arches);
        tsync_profile_free(p);

        /* A deny-list: its default becomes a refusal, its rules stay. */
        p = output_of(MAGIC EXECVE,
                      "{\"defaultAction\": \"SCMP_ACT_ALLOW\", \"syscalls\": [{\"names\": [\"mkdir\"], \"action\": "
                      "\"SCMP_ACT_ERRNO\"}]}",
                      TSYNC_RECORD_FORMAT_OCI, &err);
        tap_ok(p && p->default_action.kind == TSYNC_ACT_ERRNO && treatment(p, "mkdir", &n, &cond) == TSYNC_ACT_ERRNO &&
                       treatment(p, "execve", &n, &cond) == TSYNC_ACT_ALLOW,
               "test_record_input_an_allow_by_default_base_becomes_an_allow_list (%s)", err.msg);
        tsync_profile_free(p);

        /* A Docker rule for a capability names its call: read without
         * capabilities, the call is neither allowed nor added. */
        p = output_of(MAGIC REBOOT EXECVE,
                      "{\"defaultAction\": \"SCMP_ACT_ERRNO\", \"syscalls\": [{\"names\": [\"reboot\"], \"action\": "
                      "\"SCMP_ACT_ALLOW\", \"includes\": {\"caps\": [\"CAP_SYS_BOOT\"]}}, {\"names\": [\"execve\"], "
                      "\"action\": \"SCMP_ACT_ALLOW\"}]}",
                      TSYNC_RECORD_FORMAT_DOCKER, &err);
        tap_ok(p && treatment(p, "reboot", &n, &cond) == TSYNC_ACT_ERRNO && n == 0 &&
                       treatment(p, "execve", &n, &cond) == TSYNC_ACT_ALLOW && n == 1,
               "test_record_input_a_call_for_a_capability_is_not_added (%s)", err.msg);
        tsync_profile_free(p);
}

static void test_record_input_containers_common(void)
{
        const char *path = "/usr/share/containers/seccomp.json";
        FILE *f = fopen(path, "r");
        if (!f) {
                tap_skip(strerror(errno), "test_record_input_containers_common (%s)", path);
                return;
        }
        char *text = NULL;
        size_t len = 0;
        FILE *m = open_memstream(&text, &len);
        char buf[4096];
        size_t got;
        while (m && (got = fread(buf, 1, sizeof(buf), f)) > 0)
                (void)fwrite(buf, 1, got, m);
        (void)fclose(f);
        if (!m || fclose(m) != 0) {
                tap_ok(0, "test_record_input_containers_common: reading %s", path);
                return;
        }
        struct tsync_err err = { 0 };
        size_t n;
        bool cond;
        /* kexec_load: refused by a rule; chroot: allowed for CAP_SYS_CHROOT only. */
        struct tsync_profile *p = output_of(MAGIC KEXEC_LOAD CHROOT EXECVE, text, TSYNC_RECORD_FORMAT_OCI, &err);
        tap_ok(p && treatment(p, "kexec_load", &n, &cond) == TSYNC_ACT_ERRNO &&
                       treatment(p, "chroot", &n, &cond) == TSYNC_ACT_ERRNO &&
                       treatment(p, "execve", &n, &cond) == TSYNC_ACT_ALLOW,
               "test_record_input_containers_common_is_a_base (%s)", err.msg);
        tsync_profile_free(p);
        free(text);
}

static void test_record_check_input(void)
{
        struct tsync_err err = { 0 };
        _cleanup_free_ char *good = unit_tmp_file("good.json", block_mkdir);
        struct tsync_record_request req = { .format = TSYNC_RECORD_FORMAT_OCI, .errno_ret = EPERM, .input = good };
        tap_ok(good && tsync_record_check_input(&req, &err) == 0, "test_record_check_input_takes_a_base (%s)", err.msg);
        _cleanup_free_ char *bad =
                unit_tmp_file("bad.json", "{\"defaultAction\": \"SCMP_ACT_ERRNO\", \"syscalls\": "
                                          "[{\"names\": [\"mkdir\"], \"action\": \"SCMP_ACT_BLOCK\"}]}");
        req.input = bad;
        tap_ok(bad && tsync_record_check_input(&req, &err) == -EINVAL && strstr(err.msg, bad) == err.msg &&
                       strstr(err.msg, "SCMP_ACT_BLOCK"),
               "test_record_check_input_refuses_a_bad_one_naming_it (%s)", err.msg);
        req.input = NULL;
        tap_ok(tsync_record_check_input(&req, &err) == 0, "test_record_check_input_without_one");
}

int main(void)
{
        static void (*const tests[])(void) = {
                test_record_input_block_mkdir,
                test_record_input_keeps_rules,
                test_record_input_containers_common,
                test_record_check_input,
        };
        return unit_main_in_tmpdir(tmpl, tests, ARRAY_SIZE(tests));
}
