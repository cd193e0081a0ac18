/* The container process state a notify agent gets: runc's shape, from the OCI state a hook reads. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "agent/agent_state.h"
#include "tap.h"
#include "unit.h"
#include "util/json.h"

static void test_agent_state_has_runcs_shape(void)
{
        struct tsync_json *in =
                unit_parse("{\"ociVersion\":\"1.0.2\",\"id\":\"c1\",\"status\":\"created\",\"pid\":4242,"
                           "\"bundle\":\"/b\",\"annotations\":{\"a\":\"1\",\"io.oci-seccomp-tsync.plan\":\"{}\","
                           "\"io.oci-seccomp-tsync.running\":\"x\"}}");
        struct tsync_err err = { 0 };
        char *text = NULL;
        size_t len = 0;
        int r = in ? tsync_agent_state(in, &text, &len, &err) : -EINVAL;
        struct tsync_json *out = r == 0 ? unit_parse(text) : NULL;
        const struct tsync_json *st = tsync_json_get(out, "state");
        const struct tsync_json *fds = tsync_json_get(out, "fds");
        uint64_t pid = 0, inner_pid = 0;
        const char *id = "", *status = "", *bundle = "", *a = "";
        struct tsync_err ignored = { 0 };
        (void)tsync_json_u64(tsync_json_get(out, "pid"), "pid", &pid, &ignored);
        (void)tsync_json_u64(tsync_json_get(st, "pid"), "pid", &inner_pid, &ignored);
        (void)tsync_json_str(tsync_json_get(st, "id"), "id", &id, &ignored);
        (void)tsync_json_str(tsync_json_get(st, "status"), "status", &status, &ignored);
        (void)tsync_json_str(tsync_json_get(st, "bundle"), "bundle", &bundle, &ignored);
        (void)tsync_json_str(tsync_json_get(tsync_json_get(st, "annotations"), "a"), "a", &a, &ignored);
        tap_ok(out && pid == 4242 && inner_pid == 4242 && strcmp(id, "c1") == 0 && strcmp(status, "creating") == 0 &&
                       strcmp(bundle, "/b") == 0 && strcmp(a, "1") == 0 &&
                       tsync_json_get(st, "annotations")->u.object.len == 1 && fds && fds->type == TSYNC_JSON_ARRAY &&
                       fds->u.array.len == 1 && strcmp(fds->u.array.items[0]->u.string.ptr, "seccompFd") == 0 &&
                       !tsync_json_get(out, "metadata"),
               "test_agent_state_has_runcs_shape_with_the_host_pid_and_the_users_annotations_only (%s)",
               text ? text : err.msg);
        free(text);
        tsync_json_free(out);
        tsync_json_free(in);
}

static void test_agent_state_refusals(void)
{
        static const struct {
                const char *in, *want, *name;
        } bad[] = {
                { "{\"ociVersion\":\"1.0.2\",\"id\":\"c\",\"bundle\":\"/b\"}", "state.pid", "no_pid" },
                { "{\"ociVersion\":\"1.0.2\",\"id\":\"c\",\"pid\":0,\"bundle\":\"/b\"}", "state.pid: 0", "pid_0" },
                { "{\"ociVersion\":\"1.0.2\",\"pid\":7,\"bundle\":\"/b\"}", "state.id", "no_id" },
                { "{\"ociVersion\":\"1.0.2\",\"id\":\"c\",\"pid\":7}", "state.bundle", "no_bundle" },
                { "{\"id\":\"c\",\"pid\":7,\"bundle\":\"/b\"}", "state.ociVersion", "no_version" },
                { "{\"ociVersion\":\"1\",\"id\":\"c\",\"pid\":7,\"bundle\":\"/b\",\"annotations\":[]}",
                  "state.annotations", "annotations_not_an_object" },
        };
        for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
                struct tsync_json *in = unit_parse(bad[i].in);
                struct tsync_err err = { 0 };
                char *text = NULL;
                size_t len = 0;
                int r = in ? tsync_agent_state(in, &text, &len, &err) : 0;
                tap_ok(r < 0 && strstr(err.msg, bad[i].want), "test_agent_state_refuses_%s (%s)", bad[i].name, err.msg);
                free(text);
                tsync_json_free(in);
        }
}

/* The relay inserts the filter's listenerMetadata as runc does: first, JSON
 * escaped, left out when empty. */
static void test_agent_state_metadata(void)
{
        static const struct {
                const char *state, *meta, *want, *name;
        } cases[] = {
                { "{\"pid\":7}", "m", "{\"metadata\":\"m\",\"pid\":7}", "first_member" },
                { "{\"pid\":7}", "", "{\"pid\":7}", "left_out_when_empty" },
                { "{\"pid\":7}", "a\"b\\c\n\x01", "{\"metadata\":\"a\\\"b\\\\c\\u000a\\u0001\",\"pid\":7}", "escaped" },
                { "{}", "m", "{\"metadata\":\"m\"}", "in_an_empty_object" },
        };
        for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
                struct tsync_err err = { 0 };
                char *text = NULL;
                size_t len = 0;
                int r = tsync_agent_state_metadata(cases[i].state, strlen(cases[i].state), cases[i].meta,
                                                   strlen(cases[i].meta), &text, &len, &err);
                tap_ok(r == 0 && len == strlen(cases[i].want) && memcmp(text, cases[i].want, len) == 0,
                       "test_agent_state_metadata_%s (%.*s)", cases[i].name, text ? (int)len : 0, text ? text : "");
                free(text);
        }
        struct tsync_err err = { 0 };
        char *text = NULL;
        size_t len = 0;
        int r = tsync_agent_state_metadata("{}", 2, "a\0b", 3, &text, &len, &err);
        tap_ok(r == -EINVAL && !text && strstr(err.msg, "NUL"), "test_agent_state_metadata_refuses_a_nul_byte (%s)",
               err.msg);
}

int main(void)
{
        test_agent_state_metadata();
        test_agent_state_has_runcs_shape();
        test_agent_state_refusals();
        return tap_done();
}
