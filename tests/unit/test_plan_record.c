/* A recording's host half (hook/plan/plan_record.c, and its parts of plan.c,
 * plan_filters.c, rewrite.c): the annotation's parser, the plan's round
 * trip, the recording filter, the rewrite and its undo, and the refusals. */
#include <errno.h>
#include <grp.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "plan/plan.h"
#include "plan/plan_record.h"
#include "plan/record_place.h"
#include "plan/rewrite.h"
#include "shared/bpf.h"
#include "shared/filterfile.h"
#include "tap.h"
#include "unit.h"
#include "util/json_build.h"

/* The temporary directory the tests share, removed at exit. */
static char tmp[] = "/tmp/test_plan_record.XXXXXX";

static struct tsync_json *config_with(const char *process_extra, const char *annotations)
{
        char buf[2048];
        (void)snprintf(buf, sizeof(buf),
                       "{\"process\": {\"args\": [\"sh\", \"-c\", \":\"], \"noNewPrivileges\": true%s}, "
                       "\"root\": {\"path\": \"rootfs\"}, \"linux\": {}, \"mounts\": [], \"annotations\": %s}",
                       process_extra, annotations);
        return unit_parse(buf);
}

/* A recording's defaultErrnoRet: EPERM or ENOSYS by name, nothing else, even a
 * name the errno table knows; written back as EPERM for any number but ENOSYS. */
static void test_record_errno(void)
{
        static const struct {
                const char *name;
                int want; /* 0: refused */
        } names[] = {
                { "EPERM", EPERM }, { "ENOSYS", ENOSYS }, { "EACCES", 0 }, { "ENOTSUP", 0 }, { "eperm", 0 },
                { "1", 0 },         { "38", 0 },          { "", 0 },       { "EFOO", 0 },
        };
        for (size_t i = 0; i < ARRAY_SIZE(names); i++) {
                int e = -1;
                int r = tsync_record_errno_parse(names[i].name, &e);
                tap_ok(names[i].want ? r == 0 && e == names[i].want : r == -EINVAL && e == -1,
                       "test_record_errno_'%s'_is_%s", names[i].name, names[i].want ? "taken" : "refused");
        }
        static const struct {
                int e;
                const char *name;
        } back[] = {
                { EPERM, "EPERM" }, { ENOSYS, "ENOSYS" }, { EACCES, "EPERM" }, { 0, "EPERM" }, { -ENOSYS, "EPERM" }
        };
        for (size_t i = 0; i < ARRAY_SIZE(back); i++)
                tap_ok(strcmp(tsync_record_errno_name(back[i].e), back[i].name) == 0,
                       "test_record_errno_%d_is_written_%s", back[i].e, back[i].name);
}

static void test_annotation_parser(void)
{
        static const struct {
                const char *value;
                const char *output, *input;
                enum tsync_record_format format;
                int errno_ret;
        } accepted[] = {
                { "of:/tmp/p.json", "/tmp/p.json", NULL, TSYNC_RECORD_FORMAT_OCI, EPERM },
                { "if:/tmp/a.json;of:/tmp/b.json", "/tmp/b.json", "/tmp/a.json", TSYNC_RECORD_FORMAT_OCI, EPERM },
                { "of:/o;format:docker;errno:ENOSYS", "/o", NULL, TSYNC_RECORD_FORMAT_DOCKER, ENOSYS },
                { "of:/o;errno:EPERM;format:oci", "/o", NULL, TSYNC_RECORD_FORMAT_OCI, EPERM },
        };
        for (size_t i = 0; i < sizeof(accepted) / sizeof(accepted[0]); i++) {
                struct tsync_err err = { 0 };
                struct tsync_record_request req;
                int r = tsync_record_request_parse(accepted[i].value, &req, &err);
                tap_ok(r == 0 && strcmp(req.output, accepted[i].output) == 0 &&
                               (accepted[i].input ? req.input && strcmp(req.input, accepted[i].input) == 0
                                                  : !req.input) &&
                               req.format == accepted[i].format && req.errno_ret == accepted[i].errno_ret,
                       "test_record_annotation_reads_'%s' (%s)", accepted[i].value, err.msg);
                tsync_record_request_clear(&req);
        }
        static const struct {
                const char *value;
                const char *refusal;
        } refused[] = {
                { "", "is not KEY:VALUE" },
                { "if:/a", "no of:OUTPUT" },
                { "of:p.json", "not an absolute path" },
                { "of:", "not an absolute path" },
                { "of:/a;of:/b", "of: given twice" },
                { "of:/a;format:json", "is not oci or docker" },
                { "of:/a;errno:EACCES", "is not EPERM or ENOSYS" },
                { "of:/a;errno:EPERM;errno:EPERM", "errno: given twice" },
                { "of:/a;mode:x", "'mode' is not a key" },
                { "of:/a;", "is not KEY:VALUE" },
                { "/tmp/p.json", "is not KEY:VALUE" },
                { "OF:/a", "'OF' is not a key" },
        };
        for (size_t i = 0; i < sizeof(refused) / sizeof(refused[0]); i++) {
                struct tsync_err err = { 0 };
                struct tsync_record_request req;
                int r = tsync_record_request_parse(refused[i].value, &req, &err);
                tap_ok(r < 0 && strstr(err.msg, refused[i].refusal) && !req.output && !req.input,
                       "test_record_annotation_refuses_'%s' (%s)", refused[i].value, err.msg);
                tsync_record_request_clear(&req);
        }

        struct tsync_err err = { 0 };
        struct tsync_request req;
        struct tsync_json *c = config_with("", "{\"io.oci-seccomp-tsync.record\": \"of:/tmp/x.json\"}");
        int r = tsync_request_from_annotations(c, TSYNC_FRONTEND_PRECREATE, &req, &err);
        tap_ok(r == 0 && req.record.output && strcmp(req.record.output, "/tmp/x.json") == 0 && req.n_layers == 0,
               "test_request_reads_the_record_annotation (%s)", err.msg);
        tsync_request_clear(&req);
        tsync_json_free(c);
        c = config_with("", "{\"io.oci-seccomp-tsync.record\": \"of:x.json\"}");
        r = tsync_request_from_annotations(c, TSYNC_FRONTEND_PRECREATE, &req, &err);
        tap_ok(r < 0 && strstr(err.msg, "annotations.io.oci-seccomp-tsync.record") &&
                       strstr(err.msg, "not an absolute path"),
               "test_request_names_the_record_annotation_it_refuses (%s)", err.msg);
        tsync_json_free(c);
        c = config_with("", "{\"io.oci-seccomp-tsync.record\": 3}");
        r = tsync_request_from_annotations(c, TSYNC_FRONTEND_PRECREATE, &req, &err);
        tap_ok(r < 0 && strstr(err.msg, "annotations.io.oci-seccomp-tsync.record"),
               "test_request_refuses_a_record_annotation_that_is_not_a_string (%s)", err.msg);
        tsync_json_free(c);
}

static struct tsync_request record_request(const char *dir)
{
        struct tsync_request req = { .delivery = TSYNC_DELIVERY_ARGS, .record_dir = dir };
        req.record.output = (char *)"/tmp/out.json";
        req.record.errno_ret = ENOSYS;
        req.record.format = TSYNC_RECORD_FORMAT_DOCKER;
        return req;
}

static void test_plan(void)
{
        struct tsync_err err = { 0 };
        struct tsync_json *c = config_with("", "{}");
        struct tsync_request req = record_request("/b/oci-seccomp-tsync-record");
        struct tsync_plan *plan = NULL, *back = NULL;
        char *text = NULL;
        int r = tsync_plan_new(c, &req, NULL, &plan, &err);
        r = r ?: tsync_plan_to_json(plan, &text, &err);
        r = r ?: unit_annotate_plan(c, text);
        r = r ?: tsync_plan_from_config(c, &back, &err);
        tap_ok(r == 0 && tsync_plan_filter_count(back) == 1 && back->record.req.output &&
                       strcmp(back->record.req.output, "/tmp/out.json") == 0 && !back->record.req.input &&
                       back->record.req.errno_ret == ENOSYS && back->record.req.format == TSYNC_RECORD_FORMAT_DOCKER &&
                       strcmp(back->record.dir, "/b/oci-seccomp-tsync-record") == 0,
               "test_plan_record_alone_is_one_filter_and_survives_its_annotation (%s)", err.msg);
        char label[64] = "";
        if (r == 0)
                tsync_plan_filter_label(back, 0, label, sizeof(label));
        tap_ok(strcmp(label, "recording") == 0, "test_plan_names_the_recording_filter (%s)", label);

        struct tsync_plan_programs progs = { 0 };
        struct tsync_warnings w = { 0 };
        struct tsync_plan_paths paths = { .state_root = "/run/oci-seccomp-tsync" };
        r = r ?: tsync_plan_compile(back, &paths, c, &progs, &w, &err);
        tsync_warnings_clear(&w);
        bool marked = r == 0 && progs.n == 1 && progs.progs[0]->listener == TSYNC_LISTENER_RECORD;
        tap_ok(marked, "test_compile_marks_the_recording_filter (%s)", err.msg);
        if (marked) {
                static const struct {
                        uint32_t arch;
                        int32_t nr;
                } calls[] = {
                        { AUDIT_ARCH_X86_64, 0 },   { AUDIT_ARCH_X86_64, 59 }, { AUDIT_ARCH_X86_64, 0x40000000 | 520 },
                        { AUDIT_ARCH_I386, 11 },    { AUDIT_ARCH_I386, 1 },    { AUDIT_ARCH_X86_64, 435 },
                        { AUDIT_ARCH_X86_64, 999 },
                };
                int bad = 0;
                for (size_t i = 0; i < sizeof(calls) / sizeof(calls[0]); i++) {
                        struct tsync_bpf_input in = { .nr = calls[i].nr, .arch = calls[i].arch };
                        struct tsync_bpf_result res;
                        if (tsync_bpf_simulate(progs.progs[0]->insns, progs.progs[0]->len, &in, &res, &err) < 0 ||
                            (res.ret & SECCOMP_RET_ACTION_FULL) != SECCOMP_RET_USER_NOTIF) {
                                tap_diag("arch %#x nr %d: got %#x", calls[i].arch, calls[i].nr, res.ret);
                                bad++;
                        }
                }
#if defined(__x86_64__)
                tap_ok(bad == 0, "test_recording_filter_sends_every_call_of_every_abi_to_the_listener");
#else
                tap_skip("the ABI table of this test is x86_64's",
                         "test_recording_filter_sends_every_call_of_every_abi_to_the_listener");
                (void)bad;
#endif
                err.msg[0] = '\0';
                tap_ok(tsync_record_check_programs(back, &progs, &err) == 0,
                       "test_recording_alone_passes_its_own_check (%s)", err.msg);
        }

        /* The rewrite (issue 23): --relay for the init, the relay's tmpfs, and no
         * directory of the host; undo takes it out again. */
        struct tsync_rewrite_opts ro = { .init_path = "/usr/libexec/init", .progs = &progs };
        struct tsync_json *before = tsync_json_copy(c);
        tsync_json_remove(tsync_json_get_mut(before, "annotations"), TSYNC_ANNOTATION_PLAN);
        struct tsync_json *rewritten = tsync_json_copy(before);
        r = r ?: tsync_rewrite_apply(rewritten, back, &ro, NULL, &err);
        const struct tsync_json *args = tsync_json_get(tsync_json_get(rewritten, "process"), "args");
        bool has_option = false, has_record = false, has_tmpfs = false, has_host_dir = false;
        for (size_t i = 0; r == 0 && i + 1 < args->u.array.len; i++) {
                has_option |= strcmp(args->u.array.items[i]->u.string.ptr, "--relay") == 0 &&
                              strcmp(args->u.array.items[i + 1]->u.string.ptr, TSYNC_CONTAINER_RELAY) == 0;
                has_record |= strcmp(args->u.array.items[i]->u.string.ptr, "--record") == 0;
        }
        const struct tsync_json *mounts = tsync_json_get(rewritten, "mounts");
        for (size_t i = 0; r == 0 && mounts && i < mounts->u.array.len; i++) {
                const struct tsync_json *m = mounts->u.array.items[i];
                const struct tsync_json *d = tsync_json_get(m, "destination"), *s = tsync_json_get(m, "source");
                has_host_dir |= strcmp(d->u.string.ptr, TSYNC_CONTAINER_RECORD_DIR) == 0 ||
                                (s && strstr(s->u.string.ptr, "oci-seccomp-tsync-record"));
                has_tmpfs |= strcmp(d->u.string.ptr, TSYNC_CONTAINER_AGENT_DIR) == 0 &&
                             strcmp(tsync_json_get(m, "type")->u.string.ptr, "tmpfs") == 0;
        }
        tap_ok(r == 0 && has_option && !has_record, "test_rewrite_passes_--relay_not_--record_to_the_init (%s)",
               err.msg);
        tap_ok(r == 0 && has_tmpfs && !has_host_dir, "test_rewrite_mounts_the_relays_tmpfs_and_no_host_directory");
        char *running = NULL;
        r = r ?: tsync_rewrite_undo(rewritten, false, &running, &err);
        char path[256] = "";
        tap_ok(r == 0 && tsync_json_equal(rewritten, before, path, sizeof(path)),
               "test_undo_takes_the_recording_out_again (%s %s)", err.msg, path);
        free(running);
        tsync_json_free(rewritten);
        tsync_json_free(before);
        tsync_plan_programs_clear(&progs);

        /* Edited plans are refused. */
        static const struct {
                const char *from, *to, *want, *name;
        } bad[] = {
                { "\"errno\":\"ENOSYS\"", "\"errno\":\"EACCES\"", "plan.record.errno", "errno_eacces" },
                { "\"format\":\"docker\"", "\"format\":\"yaml\"", "plan.record.format", "format_yaml" },
                { "\"output\":\"/tmp/out.json\"", "\"output\":\"out.json\"", "plan.record.output", "relative_output" },
                { "\"output\":\"/tmp/out.json\",", "", "plan.record.output", "no_output" },
                { "\"format\":\"docker\"", "\"format\":\"docker\",\"x\":1,\"execOnce\":1", "exec once", "exec_once" },
        };
        for (size_t i = 0; text && i < sizeof(bad) / sizeof(bad[0]); i++) {
                const char *at = strstr(text, bad[i].from);
                char edited[4096] = "";
                struct tsync_plan *p = NULL;
                if (at)
                        (void)snprintf(edited, sizeof(edited), "%.*s%s%s", (int)(at - text), text, bad[i].to,
                                       at + strlen(bad[i].from));
                if (i == 4 && at) /* execOnce outside the record member */
                        (void)snprintf(edited, sizeof(edited), "%.*s\"execOnce\":1,%s", 1, text, text + 1);
                err.msg[0] = '\0';
                r = at ? unit_annotate_plan(c, edited) : -1;
                r = r ?: tsync_plan_from_config(c, &p, &err);
                tap_ok(r < 0 && strstr(err.msg, bad[i].want), "test_plan_refuses_record_%s (%s)", bad[i].name, err.msg);
                tsync_plan_free(p);
        }
        free(text);
        tsync_plan_free(plan);
        tsync_plan_free(back);
        tsync_json_free(c);
}

static void test_refusals(void)
{
        struct tsync_err err = { 0 };
        struct tsync_json *c = config_with("", "{}");
        struct tsync_plan *plan = NULL;

        struct tsync_request req = record_request("/b/oci-seccomp-tsync-record");
        req.init.exec_once = EPERM;
        int r = tsync_plan_new(c, &req, NULL, &plan, &err);
        tap_ok(r < 0 && strstr(err.msg, "recording and exec once"), "test_plan_refuses_recording_with_exec_once (%s)",
               err.msg);
        tsync_plan_free(plan);
        plan = NULL;

        req = record_request("/b/oci-seccomp-tsync-record");
        req.init.exec = true;
        r = tsync_plan_new(c, &req, NULL, &plan, &err);
        tap_ok(r < 0 && strstr(err.msg, "recording and --exec"), "test_plan_refuses_recording_with_exec (%s)", err.msg);
        tsync_plan_free(plan);
        plan = NULL;

        req = record_request(NULL);
        r = tsync_plan_new(c, &req, NULL, &plan, &err);
        tap_ok(r < 0 && strstr(err.msg, "no directory"), "test_plan_refuses_recording_without_a_directory (%s)",
               err.msg);
        tsync_plan_free(plan);
        plan = NULL;
        tsync_json_free(c);

        /* TRACE anywhere, the runtime's own profile included, and an agent's listener. */
        static const struct {
                const char *seccomp, *want, *name;
        } stacks[] = {
                { "{\"defaultAction\": \"SCMP_ACT_ALLOW\", \"syscalls\": [{\"names\": [\"getpid\"], \"action\": "
                  "\"SCMP_ACT_TRACE\"}]}",
                  "SCMP_ACT_TRACE and a recording", "a_trace_rule_in_linux_seccomp" },
        };
        for (size_t i = 0; i < sizeof(stacks) / sizeof(stacks[0]); i++) {
                char buf[1024];
                (void)snprintf(buf, sizeof(buf),
                               "{\"process\": {\"args\": [\"sh\"], \"noNewPrivileges\": true}, \"linux\": "
                               "{\"seccomp\": %s}, \"annotations\": {}}",
                               stacks[i].seccomp);
                c = unit_parse(buf);
                req = record_request("/b/oci-seccomp-tsync-record");
                struct tsync_plan_programs progs = { 0 };
                struct tsync_warnings w = { 0 };
                struct tsync_plan_paths paths = { .state_root = "/run/oci-seccomp-tsync" };
                err.msg[0] = '\0';
                r = tsync_plan_new(c, &req, NULL, &plan, &err);
                r = r ?: tsync_plan_compile(plan, &paths, c, &progs, &w, &err);
                r = r ?: tsync_record_check_programs(plan, &progs, &err);
                tap_ok(r < 0 && strstr(err.msg, stacks[i].want), "test_recording_refuses_%s (%s)", stacks[i].name,
                       err.msg);
                tsync_warnings_clear(&w);
                tsync_plan_programs_clear(&progs);
                tsync_plan_free(plan);
                plan = NULL;
                tsync_json_free(c);
        }
}

/* A notify agent's layer takes the chain's one listener: refused beside a recording. */
static void test_agent_refused(void)
{
        char layer[4200];
        (void)snprintf(layer, sizeof(layer), "%s/agent.json", tmp);
        (void)unit_write_file(
                layer, "{\"defaultAction\": \"SCMP_ACT_ALLOW\", \"listenerPath\": \"/run/a.sock\", \"syscalls\": "
                       "[{\"names\": [\"getppid\"], \"action\": \"SCMP_ACT_NOTIFY\"}]}");
        struct tsync_err err = { 0 };
        struct tsync_json *c = config_with("", "{}");
        struct tsync_request req = record_request("/b/oci-seccomp-tsync-record");
        req.delivery = TSYNC_DELIVERY_FILES;
        req.layers[0] = layer;
        req.n_layers = 1;
        struct tsync_plan *plan = NULL;
        struct tsync_plan_programs progs = { 0 };
        struct tsync_warnings w = { 0 };
        struct tsync_plan_paths paths = { .state_root = "/run/oci-seccomp-tsync" };
        int r = tsync_plan_new(c, &req, "/b/oci-seccomp-tsync", &plan, &err);
        r = r ?: tsync_plan_compile(plan, &paths, c, &progs, &w, &err);
        bool compiled = r == 0 && progs.n == 2 && progs.progs[0]->listener == TSYNC_LISTENER_AGENT &&
                        progs.progs[1]->listener == TSYNC_LISTENER_RECORD;
        r = r ?: tsync_record_check_programs(plan, &progs, &err);
        tap_ok(compiled && r < 0 && strstr(err.msg, "SCMP_ACT_NOTIFY (a notify agent's listener) and a recording"),
               "test_recording_refuses_a_notify_agents_layer (%s)", err.msg);
        tsync_warnings_clear(&w);
        tsync_plan_programs_clear(&progs);
        tsync_plan_free(plan);
        tsync_json_free(c);
}

static void test_owner_and_dirs(void)
{
        struct tsync_err err = { 0 };
        uid_t uid = 1;
        gid_t gid = 1;
        struct tsync_json *c = config_with(", \"user\": {\"uid\": 1000, \"gid\": 100}", "{}");
        int r = tsync_record_owner(c, &uid, &gid, &err);
        tap_ok(r == 0 && uid == 1000 && gid == 100, "test_record_dir_owner_is_process_user (%s)", err.msg);
        tsync_json_free(c);
        c = unit_parse("{\"process\": {\"user\": {\"uid\": 5, \"gid\": 6}}, \"linux\": {\"uidMappings\": "
                       "[{\"containerID\": 0, \"hostID\": 100000, \"size\": 65536}], \"gidMappings\": "
                       "[{\"containerID\": 0, \"hostID\": 200000, \"size\": 65536}]}}");
        r = tsync_record_owner(c, &uid, &gid, &err);
        tap_ok(r == 0 && uid == 100005 && gid == 200006, "test_record_dir_owner_is_mapped_to_the_host (%s)", err.msg);
        tsync_json_free(c);
        c = unit_parse("{\"process\": {\"user\": {\"uid\": 70000, \"gid\": 0}}, \"linux\": {\"uidMappings\": "
                       "[{\"containerID\": 0, \"hostID\": 100000, \"size\": 65536}]}}");
        r = tsync_record_owner(c, &uid, &gid, &err);
        tap_ok(r < 0 && strstr(err.msg, "not mapped"), "test_record_dir_owner_refuses_an_unmapped_user (%s)", err.msg);
        tsync_json_free(c);

        int kind = -1;
        r = tsync_record_dir_kind("/b/oci-seccomp-tsync-record", "/b/", "/var/lib/x", &kind, &err);
        tap_ok(r == 0 && kind == 0, "test_record_dir_in_the_bundle_is_ours");
        r = tsync_record_dir_kind("/var/lib/x/0123456789abcdef0123456789abcdef", "/b", "/var/lib/x", &kind, &err);
        tap_ok(r == 0 && kind == 1, "test_record_dir_under_the_record_root_is_ours");
        static const char *const not_ours[] = { "/etc", "/var/lib/x/../../etc", "/b/oci-seccomp-tsync",
                                                "/var/lib/x/0123456789ABCDEF0123456789abcdef",
                                                "/c/oci-seccomp-tsync-record" };
        for (size_t i = 0; i < sizeof(not_ours) / sizeof(not_ours[0]); i++) {
                r = tsync_record_dir_kind(not_ours[i], "/b", "/var/lib/x", &kind, &err);
                tap_ok(r == -EPERM && strstr(err.msg, "plan.record.dir"), "test_record_dir_refuses_%s", not_ours[i]);
        }

        char root[4200], dir[4300], link[4300];
        (void)snprintf(root, sizeof(root), "%s/var/record", tmp);
        (void)snprintf(dir, sizeof(dir), "%s/0123456789abcdef0123456789abcdef", root);
        r = tsync_record_make_dir(dir, root, &err);
        struct stat st = { 0 }, rst = { 0 };
        tap_ok(r == 0 && lstat(dir, &st) == 0 && S_ISDIR(st.st_mode) && (st.st_mode & 07777) == 0700 &&
                       st.st_uid == geteuid() && lstat(root, &rst) == 0 && (rst.st_mode & 07777) == 0700 &&
                       rst.st_uid == geteuid(),
               "test_record_dir_is_made_0700_and_ours_alone_under_a_private_root (%s)", err.msg);
        r = tsync_record_make_dir(dir, root, &err);
        tap_ok(r == 0, "test_record_dir_ours_already_is_fine (%s)", err.msg);
        (void)chmod(dir, 0755);
        err.msg[0] = '\0';
        r = tsync_record_make_dir(dir, root, &err);
        tap_ok(r == -EPERM && strstr(err.msg, "mode 0755"), "test_record_dir_refuses_one_of_another_mode (%s)",
               err.msg);
        (void)chmod(dir, 0700);
        if (geteuid() == 0 && chown(dir, 1234, 1234) == 0) {
                err.msg[0] = '\0';
                r = tsync_record_make_dir(dir, root, &err);
                tap_ok(r == -EPERM && strstr(err.msg, "owned by 1234"),
                       "test_record_dir_refuses_one_of_another_owner (%s)", err.msg);
                (void)chown(dir, 0, 0);
        } else {
                tap_skip("not root", "test_record_dir_refuses_one_of_another_owner");
        }
        (void)snprintf(link, sizeof(link), "%s/linked", tmp);
        if (symlink(dir, link) < 0)
                tap_diag("symlink: %s", strerror(errno));
        r = tsync_record_make_dir(link, NULL, &err);
        tap_ok(r < 0 && strstr(err.msg, "symlink"), "test_record_dir_refuses_a_symlink (%s)", err.msg);
        char *name = NULL;
        r = tsync_record_new_dir_name(root, &name, &err);
        tap_ok(r == 0 && tsync_record_dir_kind(name, NULL, root, &kind, &err) == 0 && kind == 1,
               "test_record_new_dir_name_is_a_token_under_the_root");
        free(name);
}

/* CAP_SYS_PTRACE in any of the five sets could reach the init's record file:
 * a recording refuses it, naming the set. */
static void test_record_check_caps(void)
{
        static const char *const sets[] = { "bounding", "effective", "inheritable", "permitted", "ambient" };
        for (size_t i = 0; i < sizeof(sets) / sizeof(sets[0]); i++) {
                char text[256];
                (void)snprintf(text, sizeof(text),
                               "{\"process\": {\"capabilities\": {\"%s\": [\"CAP_KILL\", \"CAP_SYS_PTRACE\"]}}}",
                               sets[i]);
                struct tsync_json *c = unit_parse(text);
                struct tsync_err err = { 0 };
                int r = c ? tsync_record_check_caps(c, &err) : 0;
                char want[64];
                (void)snprintf(want, sizeof(want), "process.capabilities.%s[1]: CAP_SYS_PTRACE", sets[i]);
                tap_ok(r == -EPERM && strstr(err.msg, want), "test_record_refuses_cap_sys_ptrace_in_%s (%s)", sets[i],
                       err.msg);
                tsync_json_free(c);
        }
        struct tsync_json *c = unit_parse("{\"process\": {\"capabilities\": {\"bounding\": [\"CAP_KILL\"]}}}");
        struct tsync_err err = { 0 };
        tap_ok(c && tsync_record_check_caps(c, &err) == 0, "test_record_takes_capabilities_without_cap_sys_ptrace");
        tsync_json_free(c);
}

/* if: is read and judged with the paths, before anything starts: a profile
 * it cannot carry refuses there, naming the file. */
static void test_record_check_paths_judges_the_input(void)
{
        char good[4200], bad[4200];
        (void)snprintf(good, sizeof(good), "%s/if-good.json", tmp);
        (void)snprintf(bad, sizeof(bad), "%s/if-bad.json", tmp);
        (void)unit_write_file(good, "{\"defaultAction\": \"SCMP_ACT_ERRNO\", \"syscalls\": [{\"names\": [\"mkdir\"], "
                                    "\"action\": \"SCMP_ACT_ERRNO\"}]}");
        (void)unit_write_file(bad, "{\"defaultAction\": \"SCMP_ACT_ERRNO\", \"syscalls\": [{\"names\": [\"mkdir\"], "
                                   "\"action\": \"SCMP_ACT_TRACE\"}]}");
        char out[4200];
        (void)snprintf(out, sizeof(out), "%s/out.json", tmp);
        char rootfs[4200], config[4400];
        (void)snprintf(rootfs, sizeof(rootfs), "%s/rootfs-if", tmp);
        (void)mkdir(rootfs, 0755);
        (void)snprintf(config, sizeof(config), "{\"root\": {\"path\": \"%s\"}}", rootfs);
        struct tsync_json *c = unit_parse(config);
        struct tsync_record_request req = { .output = out, .input = good, .errno_ret = EPERM };
        struct tsync_err err = { 0 };
        tap_ok(c && tsync_record_check_paths(&req, c, NULL, 0, &err) == 0,
               "test_record_check_paths_takes_any_profile (%s)", err.msg);
        req.input = bad;
        tap_ok(c && tsync_record_check_paths(&req, c, NULL, 0, &err) == -EINVAL && strstr(err.msg, "if: ") == err.msg &&
                       strstr(err.msg, bad) && strstr(err.msg, "SCMP_ACT_TRACE"),
               "test_record_check_paths_refuses_a_bad_input_before_the_start (%s)", err.msg);
        tsync_json_free(c);
}

/* The wrapper's recordings never replace a file (noReplace): kept through
 * the plan's annotation, and only ever true there. */
static void test_plan_keeps_no_replace(void)
{
        struct tsync_err err = { 0 };
        struct tsync_json *c = config_with("", "{}");
        struct tsync_request req = record_request("/b/oci-seccomp-tsync-record");
        struct tsync_plan *plan = NULL, *back = NULL;
        char *text = NULL;
        int r = tsync_plan_new(c, &req, NULL, &plan, &err);
        if (r == 0)
                plan->record.no_replace = true;
        r = r ?: tsync_plan_to_json(plan, &text, &err);
        tap_ok(r == 0 && strstr(text, "\"noReplace\":true"), "test_plan_writes_no_replace (%s)", text ? text : err.msg);
        r = r ?: unit_annotate_plan(c, text);
        r = r ?: tsync_plan_from_config(c, &back, &err);
        tap_ok(r == 0 && back->record.no_replace, "test_plan_reads_no_replace_back (%s)", err.msg);
        tsync_plan_free(back);
        back = NULL;
        char *at = text ? strstr(text, "\"noReplace\":true") : NULL;
        if (at)
                memcpy(at, "\"noReplace\":   0", 16);
        struct tsync_json *c2 = config_with("", "{}");
        r = at ? unit_annotate_plan(c2, text) : -1;
        r = r ?: tsync_plan_from_config(c2, &back, &err);
        tap_ok(r < 0 && strstr(err.msg, "noReplace"), "test_plan_refuses_a_no_replace_that_is_not_true (%s)", err.msg);
        tsync_plan_free(back);
        tsync_plan_free(plan);
        free(text);
        tsync_json_free(c);
        tsync_json_free(c2);
}

/* Where a recording may go (plan/record_place.h): two directories overlap
 * when one is, holds or lies inside the other, by path as far as it does not
 * exist and by device and inode where it does. */
static void test_record_place(void)
{
        char p[256], lnk[256], sub[256], other[256], dotdot[256];
        (void)snprintf(p, sizeof(p), "%s/place/profiles", tmp);
        (void)snprintf(lnk, sizeof(lnk), "%s/place/lnk", tmp);
        (void)snprintf(sub, sizeof(sub), "%s/place/lnk/sub", tmp);
        (void)snprintf(other, sizeof(other), "%s/place/other", tmp);
        (void)snprintf(dotdot, sizeof(dotdot), "%s/place/other/../profiles", tmp);
        char parent[256];
        (void)snprintf(parent, sizeof(parent), "%s/place", tmp);
        tap_ok(mkdir(parent, 0700) == 0 && mkdir(p, 0700) == 0 && mkdir(other, 0700) == 0 &&
                       symlink("profiles", lnk) == 0,
               "test_record_place: setup");
        static const struct {
                const char *dir, *place;
                enum tsync_place_overlap want;
        } rows[] = {
                /* None of these exist: by their paths. */
                { "/nonexistent/a", "/nonexistent/a", TSYNC_PLACE_IS },
                { "/nonexistent/a/", "/nonexistent//a", TSYNC_PLACE_IS },
                { "/nonexistent/a/b", "/nonexistent/a", TSYNC_PLACE_INSIDE },
                { "/nonexistent", "/nonexistent/a", TSYNC_PLACE_HOLDS },
                { "/nonexistent/ab", "/nonexistent/a", TSYNC_PLACE_APART },
                { "/nonexistent/a", "/nonexistent/ab", TSYNC_PLACE_APART },
                { "/nonexistent/./a", "/nonexistent/a", TSYNC_PLACE_IS },
                { "/", "/nonexistent/a", TSYNC_PLACE_HOLDS },
                { "/nonexistent/a", "/", TSYNC_PLACE_INSIDE },
        };
        for (size_t i = 0; i < ARRAY_SIZE(rows); i++) {
                struct tsync_err err = { 0 };
                enum tsync_place_overlap got = 99;
                int r = tsync_record_place_overlap(rows[i].dir, rows[i].place, &got, &err);
                tap_ok(r == 0 && got == rows[i].want, "test_record_place_overlap_'%s'_'%s'_is_%d (got %d: %s)",
                       rows[i].dir, rows[i].place, rows[i].want, got, err.msg);
        }
        const struct {
                const char *dir, *place;
                enum tsync_place_overlap want;
        } fs_rows[] = {
                { lnk, p, TSYNC_PLACE_IS },     /* a symbolic link to it */
                { sub, p, TSYNC_PLACE_INSIDE }, /* below the link, not made yet */
                { dotdot, p, TSYNC_PLACE_IS },  /* '..' where it exists */
                { parent, lnk, TSYNC_PLACE_HOLDS }, { other, p, TSYNC_PLACE_APART },
        };
        for (size_t i = 0; i < ARRAY_SIZE(fs_rows); i++) {
                struct tsync_err err = { 0 };
                enum tsync_place_overlap got = 99;
                int r = tsync_record_place_overlap(fs_rows[i].dir, fs_rows[i].place, &got, &err);
                tap_ok(r == 0 && got == fs_rows[i].want, "test_record_place_overlap_on_disk_%zu_is_%d (got %d: %s)", i,
                       fs_rows[i].want, got, err.msg);
        }
        struct tsync_err err = { 0 };
        enum tsync_place_overlap got;
        char climb[300];
        (void)snprintf(climb, sizeof(climb), "%s/place/missing/../../etc", tmp);
        tap_ok(tsync_record_place_overlap(climb, p, &got, &err) == -EINVAL && strstr(err.msg, "'..' below"),
               "test_record_place_refuses_dotdot_past_what_exists (%s)", err.msg);
        tap_ok(tsync_record_place_overlap("relative", p, &got, &err) == -EINVAL,
               "test_record_place_refuses_a_relative_path (%s)", err.msg);

        /* The output's directory against the places of a host. */
        const char *dirs[] = { p };
        struct tsync_plan_paths paths = { .profile_dirs = dirs, .n_profile_dirs = 1, .cache_dir = other };
        char out[300];
        (void)snprintf(out, sizeof(out), "%s/place/lnk/x.json", tmp);
        tap_ok(tsync_record_check_output_place(out, &paths, &err) == -EPERM && strstr(err.msg, "profile directory"),
               "test_record_output_in_a_profile_dir_through_a_link_is_refused (%s)", err.msg);
        (void)snprintf(out, sizeof(out), "%s/place/other/x.json", tmp);
        tap_ok(tsync_record_check_output_place(out, &paths, &err) == -EPERM && strstr(err.msg, "cache directory"),
               "test_record_output_in_the_cache_is_refused (%s)", err.msg);
        tap_ok(tsync_record_check_output_place("/var/lib/oci-seccomp-tsync/record/x.json", NULL, &err) == -EPERM &&
                       strstr(err.msg, "record root"),
               "test_record_output_in_the_record_root_is_refused (%s)", err.msg);
        tap_ok(tsync_record_check_output_place(TSYNC_PROFILE_DIR_ETC "/x.json", NULL, &err) == -EPERM,
               "test_record_output_in_the_systems_profile_dir_is_refused (%s)", err.msg);
        (void)snprintf(out, sizeof(out), "%s/place/x.json", tmp);
        tap_ok(tsync_record_check_output_place(out, &paths, &err) == 0,
               "test_record_output_beside_a_profile_dir_is_fine (%s)", err.msg);
        tap_ok(tsync_record_check_output_place("/var/lib/oci-seccomp-tsync/x.json", NULL, &err) == 0,
               "test_record_output_beside_the_record_root_is_fine (%s)", err.msg);
}

/* A rootless hook cannot search the system's 0700 directories: where it cannot
 * look, a place is compared by its path, and a destination of its own is
 * still judged (rootless Podman's recordings). Run as nobody in a child. */
static void test_record_place_where_the_user_cannot_look(void)
{
        char top[] = "/tmp/tsync-place-XXXXXX";
        char ours[64], inner[64], open_dir[64], out[96];
        if (!mkdtemp(top)) {
                tap_ok(false, "test_record_place_where_the_user_cannot_look: mkdtemp");
                return;
        }
        (void)snprintf(ours, sizeof(ours), "%s/ours", top);
        (void)snprintf(inner, sizeof(inner), "%s/ours/inner", top);
        (void)snprintf(open_dir, sizeof(open_dir), "%s/free", top);
        bool setup = chmod(top, 0755) == 0 && mkdir(ours, 0700) == 0 && mkdir(inner, 0700) == 0 &&
                     mkdir(open_dir, 0777) == 0 && chmod(open_dir, 0777) == 0;
        tap_ok(setup, "test_record_place_where_the_user_cannot_look: setup");
        /* Bit 0: a free destination passes; bit 1: one inside the unsearchable
         * place is refused by its path; bit 2: the message names the place. */
        pid_t pid = fork();
        if (pid == 0) {
                if (setgroups(0, NULL) < 0 || setresgid(65534, 65534, 65534) < 0 || setresuid(65534, 65534, 65534) < 0)
                        _exit(100);
                const char *dirs[] = { ours };
                struct tsync_plan_paths paths = { .profile_dirs = dirs, .n_profile_dirs = 1, .cache_dir = inner };
                struct tsync_err err = { 0 };
                int bits = 0;
                (void)snprintf(out, sizeof(out), "%s/x.json", open_dir);
                if (tsync_record_check_output_place(out, &paths, &err) == 0)
                        bits |= 1;
                else
                        (void)fprintf(stderr, "# free: %s\n", err.msg);
                (void)snprintf(out, sizeof(out), "%s/deeper/x.json", inner);
                if (tsync_record_check_output_place(out, &paths, &err) < 0)
                        bits |= 2;
                if (strstr(err.msg, ours))
                        bits |= 4;
                _exit(bits);
        }
        int status = 0;
        bool waited = pid > 0 && waitpid(pid, &status, 0) == pid && WIFEXITED(status);
        int bits = waited ? WEXITSTATUS(status) : -1;
        tap_ok(bits == 7, "test_record_place_a_user_who_cannot_search_our_directories_records_beside_them (%d)", bits);
        (void)rmdir(inner);
        (void)rmdir(ours);
        (void)rmdir(open_dir);
        (void)rmdir(top);
}

int main(void)
{
        static void (*const tests[])(void) = {
                test_record_errno,
                test_annotation_parser,
                test_record_check_caps,
                test_plan,
                test_refusals,
                test_agent_refused,
                test_owner_and_dirs,
                test_record_check_paths_judges_the_input,
                test_record_place,
                test_record_place_where_the_user_cannot_look,
                test_plan_keeps_no_replace,
        };
        return unit_main_in_tmpdir(tmp, tests, ARRAY_SIZE(tests));
}
