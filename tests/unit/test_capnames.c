/* Capability names as runc 1.1.5 reads them (libcontainer/capabilities: a map
 * from "CAP_" + strings.ToUpper(name) for every capability of gocapability's
 * List() up to the kernel's cap_last_cap; anything else is ignored with
 * "ignoring unknown or unavailable capabilities: [...]"), and the two places
 * of the host that must follow it: the init's options and the bounding set
 * Docker-format conditions are judged on. */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/capability.h>
#include <sys/prctl.h>

#include "facts/config_caps.h"
#include "plan/plan.h"
#include "plan/rewrite.h"
#include "shared/cap_kernel.h"
#include "shared/capnames.h"
#include "shared/capsets.h"
#include "tap.h"
#include "unit.h"
#include "util/json.h"

#define BIT(c) ((uint64_t)1 << (c))

/* gocapability's String() names, in List() order (its enum_gen.go as vendored by runc 1.1.5). */
static const char *const runc_names[] = {
        "chown",
        "dac_override",
        "dac_read_search",
        "fowner",
        "fsetid",
        "kill",
        "setgid",
        "setuid",
        "setpcap",
        "linux_immutable",
        "net_bind_service",
        "net_broadcast",
        "net_admin",
        "net_raw",
        "ipc_lock",
        "ipc_owner",
        "sys_module",
        "sys_rawio",
        "sys_chroot",
        "sys_ptrace",
        "sys_pacct",
        "sys_admin",
        "sys_boot",
        "sys_nice",
        "sys_resource",
        "sys_time",
        "sys_tty_config",
        "mknod",
        "lease",
        "audit_write",
        "audit_control",
        "setfcap",
        "mac_override",
        "mac_admin",
        "syslog",
        "wake_alarm",
        "block_suspend",
        "audit_read",
        "perfmon",
        "bpf",
        "checkpoint_restore",
};

static int kernel_last_cap(void)
{
        FILE *f = fopen("/proc/sys/kernel/cap_last_cap", "re");
        int v = -1;
        if (f) {
                if (fscanf(f, "%d", &v) != 1)
                        v = -1;
                fclose(f);
        }
        return v;
}

/* libcap's flag for a capget word: the test reads each set through libcap too. */
static cap_flag_t libcap_flag(enum tsync_capword w)
{
        return w == TSYNC_CAPWORD_EFFECTIVE   ? CAP_EFFECTIVE
               : w == TSYNC_CAPWORD_PERMITTED ? CAP_PERMITTED
                                              : CAP_INHERITABLE;
}

/* The five sets of this thread, capabilities 0..last, as libcap (and its prctl
 * wrappers, for bounding and ambient) reads them. */
static void libcap_sets(int last, uint64_t ret[TSYNC_CAPSET_COUNT])
{
        cap_t now = cap_get_proc();

        for (int s = 0; s < TSYNC_CAPSET_COUNT; s++) {
                const struct tsync_capset_def *d = tsync_capset(s);
                ret[s] = 0;
                for (int c = 0; c <= last && c < 64; c++) {
                        cap_flag_value_t v = CAP_CLEAR;
                        bool has =
                                d->capword != TSYNC_CAPWORD_NONE
                                        ? now && cap_get_flag(now, c, libcap_flag(d->capword), &v) == 0 && v == CAP_SET
                                : s == TSYNC_CAPSET_BOUNDING ? cap_get_bound(c) > 0
                                                             : cap_get_ambient(c) > 0;
                        if (has)
                                ret[s] |= UINT64_C(1) << c;
                }
        }
        (void)cap_free(now);
}

static void test_capnames_table_is_runcs(void)
{
        bool same = sizeof(runc_names) / sizeof(runc_names[0]) == TSYNC_CAPNAME_LAST + 1;
        for (unsigned c = 0; same && c <= TSYNC_CAPNAME_LAST; c++) {
                char want[64] = "CAP_";
                for (size_t i = 0; runc_names[c][i]; i++)
                        want[4 + i] = (char)toupper((unsigned char)runc_names[c][i]);
                const char *got = tsync_capname(c);
                if (!got || strcmp(got, want) != 0 || tsync_capname_lookup(want, strlen(want)) != (int)c) {
                        tap_diag("capability %u: table '%s', runc '%s'", c, got ? got : "(none)", want);
                        same = false;
                }
        }
        tap_ok(same && tsync_capname(TSYNC_CAPNAME_LAST + 1) == NULL,
               "test_capnames_table_is_runcs: CAP_CHOWN .. CAP_CHECKPOINT_RESTORE, each at its number");
}

static void test_capnames_odd_names_are_not_names(void)
{
        static const struct {
                const char *name;
                size_t len; /* 0: strlen */
                int want;
        } cases[] = {
                { "CAP_SYS_ADMIN", 0, 21 },
                { "CAP_CHOWN", 0, 0 },
                { "CAP_CHECKPOINT_RESTORE", 0, 40 },
                { "sys_admin", 0, -1 },
                { "cap_sys_admin", 0, -1 },
                { "Sys_Admin", 0, -1 },
                { "Cap_Sys_Admin", 0, -1 },
                { "CAP_sys_admin", 0, -1 },
                { "SYS_ADMIN", 0, -1 },
                { "CAP_KILL,CAP_SYS_ADMIN", 0, -1 },
                { "CAP_SYS_ADMIN,", 0, -1 },
                { "CAP_SYS_ADMIN ", 0, -1 },
                { " CAP_SYS_ADMIN", 0, -1 },
                { "CAP_SYS_ADMIN\n", 0, -1 },
                { "CAP_SYS_ADMIN\0CAP_KILL", 22, -1 },
                { "CAP_KILL\0", 9, -1 },
                { "", 0, -1 },
                { "CAP_", 0, -1 },
                { "CAP_BOGUS", 0, -1 },
                { "CAP_LAST_CAP", 0, -1 },
                { "CAP_ALL", 0, -1 },
                { "ALL", 0, -1 },
                { "21", 0, -1 },
                { "CAP_21", 0, -1 },
                { "0x15", 0, -1 },
                { "CAP_SYS_ADMINX", 0, -1 },
                { "CAP_SYS_ADMI", 0, -1 },
                { "none", 0, -1 },
        };
        for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
                size_t len = cases[i].len ? cases[i].len : strlen(cases[i].name);
                int got = tsync_capname_lookup(cases[i].name, len);
                char shown[96];
                size_t k = 0;
                for (size_t j = 0; j < len && k + 5 < sizeof(shown); j++)
                        k += (size_t)snprintf(shown + k, sizeof(shown) - k,
                                              isprint((unsigned char)cases[i].name[j]) ? "%c" : "\\x%02x",
                                              (unsigned char)cases[i].name[j]);
                shown[k] = '\0';
                tap_ok(got == cases[i].want, "test_capnames_odd_names_are_not_names: '%s' -> %d, want %d", shown, got,
                       cases[i].want);
        }
}

static void test_capnames_runc_leaves_out_what_the_kernel_lacks(void)
{
        int last = kernel_last_cap();
        if (last < 0) {
                tap_skip("no /proc/sys/kernel/cap_last_cap", "test_capnames_runc_leaves_out_what_the_kernel_lacks");
                return;
        }
        for (unsigned c = 0; c <= TSYNC_CAPNAME_LAST; c++) {
                const char *n = tsync_capname(c);
                int want = (int)c <= last ? (int)c : -1;
                if (tsync_cap_runc(n, strlen(n)) != want) {
                        tap_ok(0, "test_capnames_runc_leaves_out_what_the_kernel_lacks: %s (cap_last_cap %d)", n, last);
                        return;
                }
        }
        tap_ok(tsync_cap_runc("sys_admin", 9) == -1,
               "test_capnames_runc_leaves_out_what_the_kernel_lacks (cap_last_cap %d)", last);
}

static const char *odd_caps =
        "{\"bounding\": [\"CAP_KILL\", \"sys_admin\", \"CAP_KILL,CAP_SYS_ADMIN\", \"CAP_SYS_ADMIN \","
        "  \"Sys_Admin\", \"cap_sys_admin\", \"\", \"CAP_BOGUS\", \"CAP_BAD\\u0000\"],"
        " \"effective\": [\"CAP_KILL\", \"sys_admin\"], \"permitted\": [\"CAP_KILL\", \"sys_admin\"],"
        " \"inheritable\": [], \"ambient\": [\"sys_admin\"]}";

static void test_capnames_a_configs_bounding_set_as_runc_reads_it(void)
{
        struct tsync_err err = { 0 };
        struct tsync_json *caps = unit_parse(odd_caps);
        uint64_t b = 0;
        int r = tsync_caps_bounding_of(caps, "process.capabilities.bounding", &b, &err);
        tap_ok(r == 0 && b == BIT(5),
               "test_capnames_a_configs_bounding_set_as_runc_reads_it: CAP_KILL alone (0x%llx, %s)",
               (unsigned long long)b, err.msg);
        struct tsync_json *bad = unit_parse("{\"bounding\": [\"CAP_KILL\", 21]}");
        r = tsync_caps_bounding_of(bad, "process.capabilities.bounding", &b, &err);
        tap_ok(r < 0 && strstr(err.msg, "process.capabilities.bounding[1]"),
               "test_capnames_a_number_is_a_config_error_as_in_runc (%s)", err.msg);
        tsync_json_free(bad);
        tsync_json_free(caps);
}

static void test_capnames_one_warning_in_runcs_words(void)
{
        struct tsync_err err = { 0 };
        struct tsync_warnings w = { 0 };
        struct tsync_json *caps = unit_parse(odd_caps);
        int r = tsync_caps_warn_ignored(caps, &w, &err);
        const char *want = "process.capabilities: ignoring unknown or unavailable capabilities: "
                           "[ CAP_BAD\\x00 CAP_BOGUS CAP_KILL,CAP_SYS_ADMIN CAP_SYS_ADMIN  Sys_Admin cap_sys_admin "
                           "sys_admin]";
        tap_ok(r == 0 && w.len == 1 && strncmp(w.msgs[0], want, strlen(want)) == 0,
               "test_capnames_one_warning_in_runcs_words: %s", w.len ? w.msgs[0] : "(none)");
        tsync_warnings_clear(&w);
        struct tsync_json *fine = unit_parse("{\"bounding\": [\"CAP_KILL\"], \"ambient\": []}");
        r = tsync_caps_warn_ignored(fine, &w, &err);
        tap_ok(r == 0 && w.len == 0, "test_capnames_no_warning_for_exact_names");
        r = tsync_caps_warn_ignored(NULL, &w, &err);
        tap_ok(r == 0 && w.len == 0, "test_capnames_no_warning_without_capabilities");
        tsync_json_free(fine);
        tsync_json_free(caps);
}

/* The value after OPT in the init's args of a rewritten config, or NULL. */
static const char *init_option(const struct tsync_json *config, const char *opt)
{
        const struct tsync_json *args = tsync_json_get(tsync_json_get(config, "process"), "args");
        for (size_t i = 0; args && i + 1 < args->u.array.len; i++) {
                if (strcmp(args->u.array.items[i]->u.string.ptr, "--") == 0)
                        break;
                if (strcmp(args->u.array.items[i]->u.string.ptr, opt) == 0)
                        return args->u.array.items[i + 1]->u.string.ptr;
        }
        return NULL;
}

static void test_capnames_the_init_gets_only_names_runc_honours(void)
{
        struct tsync_err err = { 0 };
        char *text = NULL;
        if (asprintf(&text, "{\"process\": {\"args\": [\"sh\"], \"capabilities\": %s}}", odd_caps) < 0)
                return;
        struct tsync_json *c = unit_parse(text);
        const char *layers[] = { "/a.json" };
        struct tsync_request req = { .layers = { layers[0] }, .n_layers = 1 };
        struct tsync_rewrite_opts o = { .init_path = "/usr/libexec/oci-seccomp-tsync/seccomp-tsync-init",
                                        /* With hooks: without them lending (noNewPrivileges false) is refused. */
                                        .hook_path = "/usr/bin/oci-seccomp-tsync" };
        int r = unit_rewrite(c, &req, "/bundle/oci-seccomp-tsync", &o, &err);
        static const struct {
                const char *opt, *want;
        } want[] = {
                { "--bounding", "CAP_KILL" }, { "--effective", "CAP_KILL" }, { "--permitted", "CAP_KILL" },
                { "--inheritable", "none" },  { "--ambient", "none" },
        };
        for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
                const char *got = r == 0 ? init_option(c, want[i].opt) : NULL;
                tap_ok(got && strcmp(got, want[i].want) == 0,
                       "test_capnames_the_init_gets_only_names_runc_honours: %s %s (%s)", want[i].opt,
                       got ? got : "(missing)", r == 0 ? "" : err.msg);
        }
        tsync_json_free(c);
        free(text);
}

static void test_capnames_a_typed_list_stays_lenient(void)
{
        struct tsync_err err = { 0 };
        uint64_t m = 0;
        int r = tsync_caps_parse_list("sys_admin,CAP_KILL,cap_chown", &m, &err);
        tap_ok(r == 0 && m == (BIT(21) | BIT(5) | BIT(0)), "test_capnames_a_typed_list_stays_lenient (%s)", err.msg);
        r = tsync_caps_parse_list("CAP_BOGUS", &m, &err);
        tap_ok(r < 0 && strstr(err.msg, "'CAP_BOGUS' is unknown"), "test_capnames_a_typed_unknown_name_is_an_error");
}

/* Each set's record against what this process shows: its /proc/self/status
 * line holds the mask libcap (or prctl, for bounding and ambient) reads for the
 * set, the init's option is "--" + the config's key, and the keys are the
 * runtime-spec's, in its order. */
static void test_capsets_records_agree_with_proc_and_libcap(void)
{
        static const char *const spec[] = { "bounding", "effective", "inheritable", "permitted", "ambient" };
        char status[8192];
        /* Five different sets where we may (root): a swapped record then shows. */
        cap_t tweak = cap_get_proc();
        cap_value_t inh[] = { CAP_KILL, CAP_CHOWN }, eff_off = CAP_WAKE_ALARM;
        if (tweak && cap_set_flag(tweak, CAP_INHERITABLE, 2, inh, CAP_SET) == 0 &&
            cap_set_flag(tweak, CAP_EFFECTIVE, 1, &eff_off, CAP_CLEAR) == 0 && cap_set_proc(tweak) == 0)
                (void)cap_set_ambient(CAP_KILL, CAP_SET);
        (void)cap_free(tweak);
        FILE *f = fopen("/proc/self/status", "re");
        size_t n = f ? fread(status, 1, sizeof(status) - 1, f) : 0;
        if (f)
                (void)fclose(f);
        status[n] = '\0';
        uint64_t libcap[TSYNC_CAPSET_COUNT];
        libcap_sets((int)cap_max_bits() - 1, libcap);

        tap_ok(TSYNC_CAPSET_COUNT == sizeof(spec) / sizeof(spec[0]), "five sets");
        for (int s = 0; s < TSYNC_CAPSET_COUNT; s++) {
                const struct tsync_capset_def *d = tsync_capset(s);
                char line[32];
                uint64_t want = libcap[s], shown = 0;
                (void)snprintf(line, sizeof(line), "\n%s:", d->status);
                const char *at = strstr(status, line);
                bool parsed = at && sscanf(at + strlen(line), "%" SCNx64, &shown) == 1;
                tap_ok(strcmp(d->json, spec[s]) == 0 && strncmp(d->option, "--", 2) == 0 &&
                               strcmp(d->option + 2, d->json) == 0,
                       "set %d is %s, option %s", s, d->json, d->option);
                tap_ok(parsed && shown == want, "%s: /proc shows %s %016" PRIx64 ", libcap reads %016" PRIx64, d->json,
                       d->status, shown, want);
                tap_ok((d->capword != TSYNC_CAPWORD_NONE) == (s != TSYNC_CAPSET_BOUNDING && s != TSYNC_CAPSET_AMBIENT),
                       "%s: a capget word exactly for the sets capget carries", d->json);
        }
}

/* The init's reader (shared/cap_kernel.h, no libcap) against libcap's, in the
 * state the test above left (five different sets where we are root), and its
 * capset against libcap's reading of the result. */
static void test_cap_kernel_reads_and_sets_as_libcap(void)
{
        uint64_t sets[TSYNC_CAPSET_COUNT], want[TSYNC_CAPSET_COUNT], after[TSYNC_CAPSET_COUNT];
        bool no_ambient = true;
        int last = -1;

        int r = tsync_cap_kernel_last(&last);
        tap_ok(r == 0 && last == (int)cap_max_bits() - 1 && last == kernel_last_cap(),
               "last capability %d, as libcap's cap_max_bits and cap_last_cap", last);
        r = tsync_cap_kernel_read(last, sets, &no_ambient);
        tap_ok(r == 0 && !no_ambient, "read all five sets");
        libcap_sets(last, want);
        for (int s = 0; s < TSYNC_CAPSET_COUNT; s++)
                tap_ok(sets[s] == want[s], "%s: read %016" PRIx64 ", libcap %016" PRIx64, tsync_capset(s)->json,
                       sets[s], want[s]);

        /* capset: drop CAP_KILL from effective, inheritable and permitted (the ambient set loses it too). */
        uint64_t kill = UINT64_C(1) << CAP_KILL;
        sets[TSYNC_CAPSET_EFFECTIVE] &= ~kill;
        sets[TSYNC_CAPSET_INHERITABLE] &= ~kill;
        sets[TSYNC_CAPSET_PERMITTED] &= ~kill;
        tap_ok(tsync_cap_kernel_set(sets) == 0, "capset");
        cap_t now = cap_get_proc();
        cap_flag_value_t eff = CAP_SET, inh = CAP_SET, prm = CAP_SET;
        bool read = now && cap_get_flag(now, CAP_KILL, CAP_EFFECTIVE, &eff) == 0 &&
                    cap_get_flag(now, CAP_KILL, CAP_INHERITABLE, &inh) == 0 &&
                    cap_get_flag(now, CAP_KILL, CAP_PERMITTED, &prm) == 0;
        (void)cap_free(now);
        tap_ok(read && eff == CAP_CLEAR && inh == CAP_CLEAR && prm == CAP_CLEAR &&
                       tsync_cap_kernel_read(last, after, &no_ambient) == 0 &&
                       after[TSYNC_CAPSET_EFFECTIVE] == sets[TSYNC_CAPSET_EFFECTIVE] &&
                       after[TSYNC_CAPSET_PERMITTED] == sets[TSYNC_CAPSET_PERMITTED] &&
                       after[TSYNC_CAPSET_INHERITABLE] == sets[TSYNC_CAPSET_INHERITABLE] &&
                       !(after[TSYNC_CAPSET_AMBIENT] & kill),
               "capset took CAP_KILL out of all three sets, as libcap reads it, and left the rest");
        /* A set the kernel refuses (permitted raised again): capset's errno. */
        uint64_t bad[TSYNC_CAPSET_COUNT];
        for (int s = 0; s < TSYNC_CAPSET_COUNT; s++)
                bad[s] = after[s];
        bad[TSYNC_CAPSET_PERMITTED] |= kill;
        tap_ok(tsync_cap_kernel_set(bad) == -EPERM, "raising permitted again is -EPERM");
}

int main(void)
{
        test_capnames_table_is_runcs();
        test_capnames_odd_names_are_not_names();
        test_capnames_runc_leaves_out_what_the_kernel_lacks();
        test_capnames_a_configs_bounding_set_as_runc_reads_it();
        test_capnames_one_warning_in_runcs_words();
        test_capnames_the_init_gets_only_names_runc_honours();
        test_capnames_a_typed_list_stays_lenient();
        test_capsets_records_agree_with_proc_and_libcap();
        test_cap_kernel_reads_and_sets_as_libcap();
        return tap_done();
}
