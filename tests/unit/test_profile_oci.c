/* The OCI linux.seccomp reader: what it accepts, and one clear message for each thing it refuses. */
#include <errno.h>
#include <seccomp.h>
#include <stdio.h>
#include <string.h>

#include "tap.h"
#include "translate/profile.h"
#include "translate/source.h"
#include "util/json.h"

static struct tsync_profile *parse(const char *text, struct tsync_err *err)
{
        struct tsync_json *doc = NULL;
        struct tsync_profile *p = NULL;
        if (tsync_json_parse(text, strlen(text), NULL, &doc, err) == 0)
                (void)tsync_profile_from_oci(doc, &p, err);
        tsync_json_free(doc);
        return p;
}

static const struct {
        const char *name;
        const char *json;
        const char *message; /* a part of the expected error */
} refused[] = {
        { "missing_default", "{\"syscalls\": []}", "defaultAction: missing" },
        { "unknown_default", "{\"defaultAction\": \"SCMP_ACT_FOO\"}",
          "defaultAction: action 'SCMP_ACT_FOO' is unknown" },
        { "default_not_string", "{\"defaultAction\": 3}", "defaultAction" },
        { "unknown_action",
          "{\"defaultAction\": \"SCMP_ACT_ALLOW\", \"syscalls\": [{\"names\": [\"read\"], \"action\": "
          "\"SCMP_ACT_FOO\"}]}",
          "syscalls[0].action: action 'SCMP_ACT_FOO' is unknown" },
        { "unknown_op",
          "{\"defaultAction\": \"SCMP_ACT_ALLOW\", \"syscalls\": [{\"names\": [\"read\"], \"action\": "
          "\"SCMP_ACT_ERRNO\","
          " \"args\": [{\"index\": 0, \"value\": 1, \"op\": \"SCMP_CMP_FOO\"}]}]}",
          "syscalls[0].args[0].op: op 'SCMP_CMP_FOO' is unknown" },
        { "unknown_arch", "{\"defaultAction\": \"SCMP_ACT_ALLOW\", \"architectures\": [\"SCMP_ARCH_VAX\"]}",
          "architectures[0]: architecture 'SCMP_ARCH_VAX' is unknown" },
        { "unknown_flag", "{\"defaultAction\": \"SCMP_ACT_ALLOW\", \"flags\": [\"SECCOMP_FILTER_FLAG_FOO\"]}",
          "flags[0]: flag 'SECCOMP_FILTER_FLAG_FOO' is unknown" },
        { "index_past_5",
          "{\"defaultAction\": \"SCMP_ACT_ALLOW\", \"syscalls\": [{\"names\": [\"read\"], \"action\": "
          "\"SCMP_ACT_ERRNO\","
          " \"args\": [{\"index\": 6, \"value\": 1, \"op\": \"SCMP_CMP_EQ\"}]}]}",
          "syscalls[0].args[0].index: 6 is past the last argument (5)" },
        { "errno_with_allow",
          "{\"defaultAction\": \"SCMP_ACT_ERRNO\", \"syscalls\": [{\"names\": [\"read\"], \"action\": "
          "\"SCMP_ACT_ALLOW\","
          " \"errnoRet\": 1}]}",
          "syscalls[0].errnoRet: only SCMP_ACT_ERRNO and SCMP_ACT_TRACE take an errno, not SCMP_ACT_ALLOW" },
        { "default_errno_with_kill", "{\"defaultAction\": \"SCMP_ACT_KILL\", \"defaultErrnoRet\": 1}",
          "defaultErrnoRet: only SCMP_ACT_ERRNO" },
        { "errno_the_kernel_would_cap",
          "{\"defaultAction\": \"SCMP_ACT_ALLOW\", \"syscalls\": [{\"names\": [\"read\"], \"action\": "
          "\"SCMP_ACT_ERRNO\","
          " \"errnoRet\": 4096}]}",
          "syscalls[0].errnoRet" },
        { "errno_libseccomp_refuses",
          "{\"defaultAction\": \"SCMP_ACT_ALLOW\", \"syscalls\": [{\"names\": [\"read\"], \"action\": "
          "\"SCMP_ACT_ERRNO\","
          " \"errnoRet\": 4095}]}",
          "syscalls[0].errnoRet: 4095 is above the largest errno a filter can return, 4094" },
        { "default_errno_libseccomp_refuses", "{\"defaultAction\": \"SCMP_ACT_ERRNO\", \"defaultErrnoRet\": 4095}",
          "defaultErrnoRet: 4095 is above the largest errno a filter can return, 4094" },
        { "trace_data_past_16_bits", "{\"defaultAction\": \"SCMP_ACT_TRACE\", \"defaultErrnoRet\": 65536}",
          "defaultErrnoRet: 65536 does not fit the 16 bits of SECCOMP_RET_DATA" },
        { "wait_killable_recv_without_listener",
          "{\"defaultAction\": \"SCMP_ACT_ALLOW\", \"flags\": [\"SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV\"],"
          " \"syscalls\": [{\"names\": [\"read\"], \"action\": \"SCMP_ACT_ERRNO\"}]}",
          "flags: SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV needs a notification listener" },
        { "negative_errno",
          "{\"defaultAction\": \"SCMP_ACT_ALLOW\", \"syscalls\": [{\"names\": [\"read\"], \"action\": "
          "\"SCMP_ACT_ERRNO\","
          " \"errnoRet\": -1}]}",
          "syscalls[0].errnoRet" },
        { "value_above_uint64",
          "{\"defaultAction\": \"SCMP_ACT_ALLOW\", \"syscalls\": [{\"names\": [\"read\"], \"action\": "
          "\"SCMP_ACT_ERRNO\","
          " \"args\": [{\"index\": 0, \"value\": 18446744073709551616, \"op\": \"SCMP_CMP_EQ\"}]}]}",
          "syscalls[0].args[0].value" },
        { "value_two_without_mask",
          "{\"defaultAction\": \"SCMP_ACT_ALLOW\", \"syscalls\": [{\"names\": [\"read\"], \"action\": "
          "\"SCMP_ACT_ERRNO\","
          " \"args\": [{\"index\": 0, \"value\": 1, \"valueTwo\": 2, \"op\": \"SCMP_CMP_EQ\"}]}]}",
          "syscalls[0].args[0].valueTwo: only SCMP_CMP_MASKED_EQ" },
        { "names_missing", "{\"defaultAction\": \"SCMP_ACT_ALLOW\", \"syscalls\": [{\"action\": \"SCMP_ACT_ERRNO\"}]}",
          "syscalls[0].names: missing" },
        { "names_empty",
          "{\"defaultAction\": \"SCMP_ACT_ALLOW\", \"syscalls\": [{\"names\": [], \"action\": \"SCMP_ACT_ERRNO\"}]}",
          "syscalls[0].names: must name at least one syscall" },
        { "name_not_string",
          "{\"defaultAction\": \"SCMP_ACT_ALLOW\", \"syscalls\": [{\"names\": [\"read\", 7], \"action\": "
          "\"SCMP_ACT_ERRNO\"}]}",
          "syscalls[0].names[1]: expected string, got number" },
        { "name_with_nul",
          "{\"defaultAction\": \"SCMP_ACT_ALLOW\", \"syscalls\": [{\"names\": [\"re\\u0000ad\"], \"action\": "
          "\"SCMP_ACT_ERRNO\"}]}",
          "syscalls[0].names[0]: contains a NUL byte" },
        { "syscalls_not_array", "{\"defaultAction\": \"SCMP_ACT_ALLOW\", \"syscalls\": {}}", "syscalls" },
        { "args_not_array",
          "{\"defaultAction\": \"SCMP_ACT_ALLOW\", \"syscalls\": [{\"names\": [\"read\"], \"action\": "
          "\"SCMP_ACT_ERRNO\","
          " \"args\": 5}]}",
          "syscalls[0].args" },
        { "not_an_object", "[1, 2]", "expected object" },
};

static void test_profile_oci_refuses_with_the_json_path(void)
{
        for (size_t i = 0; i < sizeof(refused) / sizeof(refused[0]); i++) {
                struct tsync_err err = { 0 };
                struct tsync_profile *p = parse(refused[i].json, &err);
                tap_ok(!p && strstr(err.msg, refused[i].message) != NULL, "test_profile_oci_refuses_%s (%s)",
                       refused[i].name, err.msg);
                tsync_profile_free(p);
        }
}

static void test_profile_oci_reads_every_field(void)
{
        struct tsync_err err = { 0 };
        struct tsync_profile *p =
                parse("{\"defaultAction\": \"SCMP_ACT_ERRNO\", \"defaultErrnoRet\": 38,"
                      " \"architectures\": [\"SCMP_ARCH_X86_64\", \"SCMP_ARCH_X86\", \"SCMP_ARCH_X86\"],"
                      " \"flags\": [\"SECCOMP_FILTER_FLAG_LOG\", \"SECCOMP_FILTER_FLAG_SPEC_ALLOW\", "
                      "\"SECCOMP_FILTER_FLAG_TSYNC\"],"
                      " \"listenerPath\": \"/run/l.sock\", \"listenerMetadata\": \"meta\","
                      " \"syscalls\": [{\"names\": [\"read\", \"write\"], \"action\": \"SCMP_ACT_ALLOW\"},"
                      "  {\"names\": [\"clone\"], \"action\": \"SCMP_ACT_TRACE\", \"errnoRet\": 9,"
                      "   \"args\": [{\"index\": 0, \"value\": 18446744073709551615, \"valueTwo\": 0, \"op\": "
                      "\"SCMP_CMP_MASKED_EQ\"}]}],"
                      " \"unknownField\": true}",
                      &err);
        if (!tap_ok(p != NULL, "test_profile_oci_reads_every_field: parses (%s)", err.msg))
                return;
        tap_ok(p->default_action.kind == TSYNC_ACT_ERRNO && p->default_action.data == 38,
               "test_profile_oci_default_errno_ret");
        tap_ok(p->n_arches == 2 && p->arches[0] == SCMP_ARCH_X86_64 && p->arches[1] == SCMP_ARCH_X86,
               "test_profile_oci_architectures_without_duplicates");
        tap_ok(p->flags == ((1u << 1) | (1u << 2)), "test_profile_oci_flags (TSYNC is implied, not recorded)");
        tap_ok(p->listener_path && strcmp(p->listener_path, "/run/l.sock") == 0 && p->listener_metadata &&
                       strcmp(p->listener_metadata, "meta") == 0,
               "test_profile_oci_listener_fields");
        tap_ok(p->n_rules == 2 && p->rules[0].n_names == 2 && strcmp(p->rules[0].names[1], "write") == 0,
               "test_profile_oci_names");
        tap_ok(p->rules[1].action.kind == TSYNC_ACT_TRACE && p->rules[1].action.data == 9 && p->rules[1].n_args == 1 &&
                       p->rules[1].args[0].value == UINT64_MAX && p->rules[1].args[0].op == TSYNC_OP_MASKED_EQ,
               "test_profile_oci_uint64_max_round_trips");
        tap_ok(strcmp(p->rules[1].origin, "syscalls[1]") == 0, "test_profile_oci_rules_remember_their_origin");
        tsync_profile_free(p);
}

static void test_profile_oci_errno_defaults_like_runc(void)
{
        struct tsync_err err = { 0 };
        struct tsync_profile *p = parse("{\"defaultAction\": \"SCMP_ACT_ERRNO\", \"syscalls\": ["
                                        "{\"names\": [\"a\"], \"action\": \"SCMP_ACT_TRACE\"},"
                                        "{\"names\": [\"b\"], \"action\": \"SCMP_ACT_KILL\"}]}",
                                        &err);
        if (!tap_ok(p != NULL, "test_profile_oci_errno_defaults_like_runc: parses (%s)", err.msg))
                return;
        tap_ok(p->default_action.data == EPERM, "test_profile_oci_errno_without_errnoRet_is_EPERM");
        tap_ok(p->rules[0].action.data == EPERM, "test_profile_oci_trace_without_errnoRet_is_1");
        tap_ok(p->rules[1].action.kind == TSYNC_ACT_KILL_THREAD, "test_profile_oci_kill_means_kill_thread");
        tsync_profile_free(p);
}

static void test_profile_oci_canonical_ignores_layout(void)
{
        struct tsync_err err = { 0 };
        struct tsync_profile *a = parse("{\"defaultAction\": \"SCMP_ACT_ERRNO\", \"syscalls\": [{\"names\": [\"read\"],"
                                        " \"action\": \"SCMP_ACT_ALLOW\"}]}",
                                        &err);
        struct tsync_profile *b =
                parse("{ \"syscalls\" : [ { \"action\" : \"SCMP_ACT_ALLOW\", \"names\" : [ \"read\" ] } ],"
                      "\n \"defaultAction\" : \"SCMP_ACT_ERRNO\" }",
                      &err);
        struct tsync_profile *c =
                parse("{\"defaultAction\": \"SCMP_ACT_ERRNO\", \"syscalls\": [{\"names\": [\"reade\"],"
                      " \"action\": \"SCMP_ACT_ALLOW\"}]}",
                      &err);
        char *ta = NULL, *tb = NULL, *tc = NULL;
        size_t la = 0, lb = 0, lc = 0;
        int ok = a && b && c && tsync_profile_canonical(a, &ta, &la) == 0 &&
                 tsync_profile_canonical(b, &tb, &lb) == 0 && tsync_profile_canonical(c, &tc, &lc) == 0;
        tap_ok(ok && la == lb && memcmp(ta, tb, la) == 0, "test_profile_oci_canonical_ignores_key_order_and_spaces");
        tap_ok(ok && (la != lc || memcmp(ta, tc, la) != 0), "test_profile_oci_canonical_sees_a_changed_name");
        /* The text itself, as every cache key so far was made from it: a change
         * of form would leave every cached program unused. */
        static const char want[] = "tsync-profile-1\ndefault 3 1\narches\nflags 0\nlistener -;-;\n"
                                   "rule 5 0 names 5:reade; args\n";
        tap_ok(ok && lc == strlen(want) && memcmp(tc, want, lc) == 0,
               "test_profile_oci_canonical_text_is_unchanged: %.*s", ok ? (int)lc : 0, ok ? tc : "");
        free(ta);
        free(tb);
        free(tc);
        tsync_profile_free(a);
        tsync_profile_free(b);
        tsync_profile_free(c);
}

/* Unknown keys, read through the source reader the CLI and the hook use. */
static int load_text(const char *text, enum tsync_format format, enum tsync_keys keys, struct tsync_warnings *w,
                     struct tsync_err *err)
{
        struct tsync_json *doc = NULL;
        struct tsync_profile *p = NULL;
        struct tsync_source_opts so = { .format = format, .keys = keys, .warnings = w };
        int r = tsync_json_parse(text, strlen(text), NULL, &doc, err);
        if (r == 0)
                r = tsync_source_from_json(doc, &so, &p, NULL, err);
        tsync_profile_free(p);
        tsync_json_free(doc);
        return r;
}

#define RULE(extra) "{\"names\": [\"getcwd\"], \"action\": \"SCMP_ACT_ERRNO\"" extra "}"
#define ARG(extra)  "{\"index\": 0, \"value\": 1, \"op\": \"SCMP_CMP_EQ\"" extra "}"

static const struct {
        const char *name;
        const char *json;
        const char *message;
} unknown_keys[] = {
        { "top_level_typo", "{\"defaultAction\": \"SCMP_ACT_ALLOW\", \"syscall\": [" RULE("") "]}",
          "syscall: unknown key (did you mean 'syscalls'?)" },
        { "top_level_case", "{\"defaultaction\": \"SCMP_ACT_ALLOW\", \"defaultAction\": \"SCMP_ACT_ALLOW\"}",
          "defaultaction: unknown key (did you mean 'defaultAction'?)" },
        { "top_level_far_from_any", "{\"defaultAction\": \"SCMP_ACT_ALLOW\", \"frobnicate\": 1}",
          "frobnicate: unknown key" },
        { "rule_typo",
          "{\"defaultAction\": \"SCMP_ACT_ALLOW\", \"syscalls\": [" RULE("") ", " RULE(", \"arg\": []") "]}",
          "syscalls[1].arg: unknown key (did you mean 'args'?)" },
        { "rule_docker_only_key_in_oci",
          "{\"defaultAction\": \"SCMP_ACT_ALLOW\", \"syscalls\": [" RULE(", \"errnoret\": 1") "]}",
          "syscalls[0].errnoret: unknown key (did you mean 'errnoRet'?)" },
        { "arg_typo",
          "{\"defaultAction\": \"SCMP_ACT_ALLOW\", \"syscalls\": [" RULE(
                  ", \"args\": [" ARG("") ", " ARG(", \"valuetwo\": 2") "]") "]}",
          "syscalls[0].args[1].valuetwo: unknown key (did you mean 'valueTwo'?)" },
};

static void test_profile_oci_unknown_keys(void)
{
        for (size_t i = 0; i < sizeof(unknown_keys) / sizeof(unknown_keys[0]); i++) {
                struct tsync_err err = { 0 };
                struct tsync_warnings w = { 0 };
                int r = load_text(unknown_keys[i].json, TSYNC_FORMAT_AUTO, TSYNC_KEYS_AUTO, &w, &err);
                tap_ok(r == -EINVAL && strcmp(err.msg, unknown_keys[i].message) == 0 && w.len == 0,
                       "test_profile_oci_unknown_key_is_an_error_%s: %d '%s'", unknown_keys[i].name, r, err.msg);
                /* The same object as a config's own linux.seccomp: a warning, and it loads. */
                memset(&err, 0, sizeof(err));
                r = load_text(unknown_keys[i].json, TSYNC_FORMAT_OCI, TSYNC_KEYS_WARN, &w, &err);
                tap_ok(r == 0 && w.len == 1 && strstr(w.msgs[0], "linux.seccomp.") == w.msgs[0] &&
                               strstr(w.msgs[0], "ignored as runc ignores it"),
                       "test_profile_oci_unknown_key_warns_in_a_config_section_%s: %d %zu '%s'", unknown_keys[i].name,
                       r, w.len, w.len ? w.msgs[0] : err.msg);
                tsync_warnings_clear(&w);
        }

        /* A config.json read as such: warnings, whatever the file is called. */
        static const char config[] = "{\"ociVersion\": \"1.0.2\", \"linux\": {\"seccomp\": {\"defaultAction\": "
                                     "\"SCMP_ACT_ALLOW\", \"syscall\": [], \"syscalls\": [" RULE(
                                             ", \"args\": [" ARG(", \"vlaue\": 3") "]") "]}}}";
        struct tsync_err err = { 0 };
        struct tsync_warnings w = { 0 };
        int r = load_text(config, TSYNC_FORMAT_AUTO, TSYNC_KEYS_AUTO, &w, &err);
        tap_ok(r == 0 && w.len == 2 &&
                       strcmp(w.msgs[0], "linux.seccomp.syscall: unknown key, ignored as runc ignores it (did you mean "
                                         "'syscalls'?)") == 0 &&
                       strstr(w.msgs[1], "linux.seccomp.syscalls[0].args[0].vlaue: unknown key") == w.msgs[1],
               "test_profile_oci_config_section_warns: %d %zu '%s'", r, w.len, w.len ? w.msgs[0] : err.msg);
        tsync_warnings_clear(&w);
        /* ...but a config.json given as a layer is held to a layer's rule. */
        r = load_text(config, TSYNC_FORMAT_AUTO, TSYNC_KEYS_ERROR, &w, &err);
        tap_ok(r == -EINVAL && strcmp(err.msg, "linux.seccomp: syscall: unknown key (did you mean 'syscalls'?)") == 0,
               "test_profile_oci_config_as_a_layer_refuses: %d '%s'", r, err.msg);
        tsync_warnings_clear(&w);

        /* Every key the runtime-spec defines passes, quietly. */
        static const char every[] =
                "{\"defaultAction\": \"SCMP_ACT_ERRNO\", \"defaultErrnoRet\": 1, \"architectures\": "
                "[\"SCMP_ARCH_X86_64\"],"
                " \"flags\": [\"SECCOMP_FILTER_FLAG_LOG\"], \"listenerPath\": null, \"listenerMetadata\": null,"
                " \"syscalls\": [{\"names\": [\"read\"], \"action\": \"SCMP_ACT_ERRNO\", \"errnoRet\": 2, \"args\": [{"
                "\"index\": 0, \"value\": 1, \"valueTwo\": 1, \"op\": \"SCMP_CMP_MASKED_EQ\"}]}]}";
        memset(&err, 0, sizeof(err));
        r = load_text(every, TSYNC_FORMAT_AUTO, TSYNC_KEYS_AUTO, &w, &err);
        tap_ok(r == 0 && w.len == 0, "test_profile_oci_every_spec_key_passes: %d %s", r, err.msg);
        tsync_warnings_clear(&w);
}

int main(void)
{
        test_profile_oci_refuses_with_the_json_path();
        test_profile_oci_reads_every_field();
        test_profile_oci_errno_defaults_like_runc();
        test_profile_oci_canonical_ignores_layout();
        test_profile_oci_unknown_keys();
        return tap_done();
}
