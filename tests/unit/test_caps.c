/* Capability sets of hook/facts/config_caps.c: names a user types (--caps), runc's exact
 * rule for a config's process.capabilities, the bounding set a runtime gives,
 * and runc's warning about the entries it ignores. The kernel's last
 * capability is read from /proc here, independently of libcap. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "facts/config_caps.h"
#include "shared/capnames.h"
#include "shared/cleanup.h"
#include "tap.h"
#include "unit.h"

#define BIT(n) ((uint64_t)1 << (n))

static int proc_last_cap(void)
{
        FILE *f = fopen("/proc/sys/kernel/cap_last_cap", "re");
        int last = -1;
        if (!f)
                return -1;
        if (fscanf(f, "%d", &last) != 1)
                last = -1;
        (void)fclose(f);
        return last;
}

static uint64_t all_of_kernel(void)
{
        int last = proc_last_cap();
        return last >= 63 ? UINT64_MAX : BIT(last + 1) - 1;
}

static void test_caps_from_name(void)
{
        static const struct {
                const char *name;
                int want; /* -1: refused */
        } cases[] = {
                { "CAP_SYS_ADMIN", 21 },
                { "cap_sys_admin", 21 },
                { "Cap_Sys_Admin", 21 },
                { "sys_admin", 21 },
                { "SYS_ADMIN", 21 },
                { "chown", 0 },
                { "CAP_CHOWN", 0 },
                { "kill", 5 },
                { "CAP_CHECKPOINT_RESTORE", 40 },
                { "", -1 },
                { "CAP_", -1 },
                { "cap_", -1 },
                { "bogus", -1 },
                { "CAP_CAP_CHOWN", -1 },
                { " CAP_CHOWN", -1 },
                { "CAP_CHOWN ", -1 },
                { "sys-admin", -1 },
                { "CAP_SYS_ADMIN_AND_THEN_A_VERY_LONG_TAIL_THAT_NO_NAME_HAS_AT_ALL_", -1 },
        };
        for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
                unsigned c = 999;
                int r = tsync_cap_from_name(cases[i].name, &c);
                if (cases[i].want < 0)
                        tap_ok(r == -EINVAL && c == 999, "test_caps_from_name_refuses_'%s': r=%d", cases[i].name, r);
                else
                        tap_ok(r == 0 && c == (unsigned)cases[i].want, "test_caps_from_name_'%s'_is_%d: r=%d c=%u",
                               cases[i].name, cases[i].want, r, c);
        }
}

static void test_caps_parse_list(void)
{
        struct tsync_err err = { 0 };
        uint64_t caps = 12345;
        int r;

        r = tsync_caps_parse_list("all", &caps, &err);
        tap_ok(proc_last_cap() > 0 && r == 0 && caps == all_of_kernel(),
               "test_caps_parse_list_all_is_every_capability_of_this_kernel: %#llx (last %d)", (unsigned long long)caps,
               proc_last_cap());
        caps = 12345;
        r = tsync_caps_parse_list("none", &caps, &err);
        tap_ok(r == 0 && caps == 0, "test_caps_parse_list_none_is_empty");
        caps = 12345;
        r = tsync_caps_parse_list("", &caps, &err);
        tap_ok(r == 0 && caps == 0, "test_caps_parse_list_empty_string_is_empty");
        r = tsync_caps_parse_list("CAP_CHOWN,kill,cap_sys_admin", &caps, &err);
        tap_ok(r == 0 && caps == (BIT(0) | BIT(5) | BIT(21)), "test_caps_parse_list_mixed_spellings: %#llx",
               (unsigned long long)caps);
        r = tsync_caps_parse_list("CAP_CHOWN,,CAP_KILL,", &caps, &err);
        tap_ok(r == 0 && caps == (BIT(0) | BIT(5)), "test_caps_parse_list_empty_items_are_skipped: %#llx",
               (unsigned long long)caps);
        r = tsync_caps_parse_list("CAP_KILL,CAP_KILL", &caps, &err);
        tap_ok(r == 0 && caps == BIT(5), "test_caps_parse_list_repeats_are_one_bit");

        caps = 12345;
        memset(&err, 0, sizeof(err));
        r = tsync_caps_parse_list("CAP_CHOWN,bogus,CAP_KILL", &caps, &err);
        tap_ok(r == -EINVAL && err.code == EINVAL && strcmp(err.msg, "capability 'bogus' is unknown") == 0 &&
                       caps == 12345,
               "test_caps_parse_list_unknown_name_is_an_error_naming_it: r=%d '%s'", r, err.msg);
        r = tsync_caps_parse_list("ALL", &caps, &err);
        tap_ok(r == -EINVAL && strstr(err.msg, "'ALL'"), "test_caps_parse_list_all_is_lower_case_only: %s", err.msg);
        r = tsync_caps_parse_list("all,CAP_KILL", &caps, &err);
        tap_ok(r == -EINVAL && strstr(err.msg, "'all'"), "test_caps_parse_list_all_is_not_a_list_item: %s", err.msg);
}

static void test_caps_runc_rule(void)
{
        tap_ok(tsync_cap_runc("CAP_SYS_ADMIN", 13) == 21, "test_caps_runc_exact_name");
        tap_ok(tsync_cap_runc("cap_sys_admin", 13) == -1, "test_caps_runc_ignores_lower_case");
        tap_ok(tsync_cap_runc("SYS_ADMIN", 9) == -1, "test_caps_runc_ignores_a_name_without_CAP_");
        tap_ok(tsync_cap_runc("CAP_SYS_ADMINX", 13) == 21, "test_caps_runc_reads_only_len_bytes");
        tap_ok(tsync_cap_runc("CAP_SYS_ADMIN\0X", 15) == -1, "test_caps_runc_ignores_a_name_with_a_NUL");
        int last = proc_last_cap();
        if (last >= 0 && last < TSYNC_CAPNAME_LAST)
                tap_ok(tsync_cap_runc("CAP_CHECKPOINT_RESTORE", 22) == -1,
                       "test_caps_runc_ignores_a_capability_this_kernel_lacks");
        else
                tap_skip("this kernel has every capability of the table",
                         "test_caps_runc_ignores_a_capability_this_kernel_lacks");
}

static void test_caps_from_json(void)
{
        struct tsync_err err = { 0 };
        uint64_t caps = 12345;
        int r;
        _cleanup_json_ struct tsync_json *doc =
                unit_parse("{\"good\": [\"CAP_CHOWN\", \"CAP_KILL\", \"cap_net_raw\", \"CAP_BOGUS\", \"NET_ADMIN\"],"
                           " \"empty\": [], \"notarray\": {\"a\": 1}, \"badentry\": [\"CAP_CHOWN\", 7],"
                           " \"nullentry\": [null]}");

        r = tsync_caps_from_json(tsync_json_get(doc, "good"), "process.capabilities.bounding", &caps, &err);
        tap_ok(r == 0 && caps == (BIT(0) | BIT(5)), "test_caps_from_json_keeps_exact_names_and_ignores_the_rest: %#llx",
               (unsigned long long)caps);
        r = tsync_caps_from_json(tsync_json_get(doc, "empty"), "x", &caps, &err);
        tap_ok(r == 0 && caps == 0, "test_caps_from_json_empty_array_is_empty");

        caps = 12345;
        r = tsync_caps_from_json(tsync_json_get(doc, "notarray"), "process.capabilities.bounding", &caps, &err);
        tap_ok(r == -EINVAL && caps == 12345 &&
                       strcmp(err.msg, "process.capabilities.bounding: expected array, got object") == 0,
               "test_caps_from_json_not_an_array_names_the_path: %s", err.msg);
        r = tsync_caps_from_json(tsync_json_get(doc, "badentry"), "process.capabilities.bounding", &caps, &err);
        tap_ok(r == -EINVAL && caps == 12345 &&
                       strcmp(err.msg, "process.capabilities.bounding[1]: expected string, got number") == 0,
               "test_caps_from_json_non_string_entry_names_its_index: %s", err.msg);
        r = tsync_caps_from_json(tsync_json_get(doc, "nullentry"), "p", &caps, &err);
        tap_ok(r == -EINVAL && strcmp(err.msg, "p[0]: expected string, got null") == 0,
               "test_caps_from_json_null_entry_is_an_error: %s", err.msg);
        r = tsync_caps_from_json(NULL, "process.capabilities.bounding", &caps, &err);
        tap_ok(r == -EINVAL && strcmp(err.msg, "process.capabilities.bounding: missing") == 0,
               "test_caps_from_json_absent_is_missing: %s", err.msg);
}

static void test_caps_bounding_of(void)
{
        struct tsync_err err = { 0 };
        uint64_t caps = 12345;
        int r;
        _cleanup_json_ struct tsync_json *doc = unit_parse(
                "{\"none\": {\"effective\": [\"CAP_KILL\"]}, \"some\": {\"bounding\": [\"CAP_KILL\", \"CAP_FOWNER\"]},"
                " \"bad\": {\"bounding\": \"CAP_KILL\"}, \"nulled\": {\"bounding\": null}}");

        r = tsync_caps_bounding_of(NULL, "process.capabilities.bounding", &caps, &err);
        tap_ok(r == 0 && caps == all_of_kernel(), "test_caps_bounding_of_no_object_is_every_capability: %#llx",
               (unsigned long long)caps);
        r = tsync_caps_bounding_of(tsync_json_get(doc, "none"), "process.capabilities.bounding", &caps, &err);
        tap_ok(r == 0 && caps == 0, "test_caps_bounding_of_object_without_bounding_is_empty: %#llx",
               (unsigned long long)caps);
        r = tsync_caps_bounding_of(tsync_json_get(doc, "some"), "process.capabilities.bounding", &caps, &err);
        tap_ok(r == 0 && caps == (BIT(5) | BIT(3)), "test_caps_bounding_of_reads_bounding: %#llx",
               (unsigned long long)caps);
        caps = 12345;
        r = tsync_caps_bounding_of(tsync_json_get(doc, "bad"), "process.capabilities.bounding", &caps, &err);
        tap_ok(r == -EINVAL && caps == 12345 &&
                       strcmp(err.msg, "process.capabilities.bounding: expected array, got string") == 0,
               "test_caps_bounding_of_bad_type_names_the_path: %s", err.msg);
        r = tsync_caps_bounding_of(tsync_json_get(doc, "nulled"), "process.capabilities.bounding", &caps, &err);
        tap_ok(r == -EINVAL && strcmp(err.msg, "process.capabilities.bounding: expected array, got null") == 0,
               "test_caps_bounding_of_null_bounding_is_an_error: %s", err.msg);
}

static void test_caps_warn_ignored(void)
{
        struct tsync_err err = { 0 };
        struct tsync_warnings w = { 0 };
        int r;
        _cleanup_json_ struct tsync_json *doc =
                unit_parse("{\"clean\": {\"bounding\": [\"CAP_KILL\"], \"effective\": [\"CAP_KILL\"]},"
                           " \"dirty\": {\"bounding\": [\"CAP_KILL\", \"cap_zeta\", \"CAP_BOGUS\"],"
                           "             \"effective\": [\"CAP_BOGUS\", 5, \"\\u0001x\\\\\"],"
                           "             \"ambient\": [\"CAP_ALPHA\"], \"other\": [\"CAP_NOT_A_SET\"],"
                           "             \"permitted\": \"CAP_NOT_AN_ARRAY\"}}");

        r = tsync_caps_warn_ignored(tsync_json_get(doc, "clean"), &w, &err);
        tap_ok(r == 0 && w.len == 0, "test_caps_warn_ignored_nothing_when_every_name_counts");
        r = tsync_caps_warn_ignored(NULL, &w, &err);
        tap_ok(r == 0 && w.len == 0, "test_caps_warn_ignored_nothing_without_capabilities");

        r = tsync_caps_warn_ignored(tsync_json_get(doc, "dirty"), &w, &err);
        const char *want = "process.capabilities: ignoring unknown or unavailable capabilities: "
                           "[\\x01x\\x5c CAP_ALPHA CAP_BOGUS cap_zeta] (left out, as runc leaves them out: only "
                           "exact names such as CAP_SYS_ADMIN count)";
        tap_ok(r == 0 && w.len == 1 && strcmp(w.msgs[0], want) == 0,
               "test_caps_warn_ignored_one_line_sorted_each_once_escaped_from_the_five_sets: %s",
               w.len ? w.msgs[0] : "(none)");
        tsync_warnings_clear(&w);
        r = tsync_caps_warn_ignored(tsync_json_get(doc, "dirty"), NULL, &err);
        tap_ok(r == 0, "test_caps_warn_ignored_null_list_drops_the_warning");
}

int main(void)
{
        test_caps_from_name();
        test_caps_parse_list();
        test_caps_runc_rule();
        test_caps_from_json();
        test_caps_bounding_of();
        test_caps_warn_ignored();
        return tap_done();
}
