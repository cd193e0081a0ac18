#include "agent/agent_state.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "plan/plan.h"
#include "shared/cleanup.h"
#include "shared/errnos.h"
#include "util/json_build.h"

/* The agent tells containers apart by these, so each is checked rather than
 * copied blindly: a state without them would reach the agent as a container
 * it cannot name. */
static int container_state(const struct tsync_json *in, uint64_t pid, struct tsync_json **ret, struct tsync_err *err)
{
        const char *version, *id, *bundle;
        int r = tsync_json_str(tsync_json_get(in, "ociVersion"), "state.ociVersion", &version, err);
        if (r == 0)
                r = tsync_json_str(tsync_json_get(in, "id"), "state.id", &id, err);
        if (r == 0)
                r = tsync_json_str(tsync_json_get(in, "bundle"), "state.bundle", &bundle, err);
        const struct tsync_json *annotations = tsync_json_get(in, "annotations");
        if (r == 0 && annotations)
                r = tsync_json_expect(annotations, "state.annotations", TSYNC_JSON_OBJECT, err);
        if (r < 0)
                return r;
        _cleanup_json_ struct tsync_json *s = tsync_json_new_object();
        r = s ? tsync_json_set(s, "ociVersion", tsync_json_new_string(version)) : -ENOMEM;
        if (r == 0)
                r = tsync_json_set(s, "id", tsync_json_new_string(id));
        /* createRuntime runs while the runtime still creates the container. */
        if (r == 0)
                r = tsync_json_set(s, "status", tsync_json_new_string("creating"));
        if (r == 0)
                r = tsync_json_set(s, "pid", tsync_json_new_u64(pid));
        if (r == 0)
                r = tsync_json_set(s, "bundle", tsync_json_new_string(bundle));
        if (r == 0 && annotations) {
                /* The agent sees the container's annotations as runc alone
                 * would send them: without the two the rewrite added. */
                struct tsync_json *copy = tsync_json_copy(annotations);
                tsync_json_remove(copy, TSYNC_ANNOTATION_PLAN);
                tsync_json_remove(copy, TSYNC_ANNOTATION_RUNNING);
                r = tsync_json_set(s, "annotations", copy);
        }
        if (r < 0)
                return tsync_error(err, -r, "the agent's state: %s", tsync_errtext(-r));
        *ret = TAKE_PTR(s);
        return 0;
}

int tsync_agent_state(const struct tsync_json *oci_state, char **ret, size_t *ret_len, struct tsync_err *err)
{
        uint64_t pid = 0;
        int r = tsync_json_u64(tsync_json_get(oci_state, "pid"), "state.pid", &pid, err);
        if (r < 0)
                return r;
        if (pid == 0 || pid > INT32_MAX)
                return tsync_error(err, EINVAL, "state.pid: %llu is no process", (unsigned long long)pid);
        _cleanup_json_ struct tsync_json *inner = NULL;
        r = container_state(oci_state, pid, &inner, err);
        if (r < 0)
                return r;
        const char *version = tsync_json_get(inner, "ociVersion")->u.string.ptr;
        _cleanup_json_ struct tsync_json *out = tsync_json_new_object();
        _cleanup_json_ struct tsync_json *fds = tsync_json_new_array();
        r = out && fds ? tsync_json_set(out, "ociVersion", tsync_json_new_string(version)) : -ENOMEM;
        if (r == 0)
                r = tsync_json_append(fds, tsync_json_new_string("seccompFd"));
        if (r == 0)
                r = tsync_json_set(out, "fds", TAKE_PTR(fds));
        if (r == 0)
                r = tsync_json_set(out, "pid", tsync_json_new_u64(pid));
        if (r == 0)
                r = tsync_json_set(out, "state", TAKE_PTR(inner));
        if (r < 0)
                return tsync_error(err, -r, "the agent's state: %s", tsync_errtext(-r));
        return tsync_json_write(out, false, ret, ret_len, err);
}

int tsync_agent_state_metadata(const char *state, size_t len, const char *metadata, size_t mlen, char **ret,
                               size_t *ret_len, struct tsync_err *err)
{
        static const char hex[] = "0123456789abcdef";
        if (len < 2 || state[0] != '{')
                return tsync_error(err, EINVAL, "the agent's state is not a JSON object");
        if (memchr(metadata, '\0', mlen))
                return tsync_error(err, EINVAL, "listenerMetadata: holds a NUL byte");
        /* "metadata":"<escaped>", each byte escaped to at most 6. */
        char *out = malloc(len + sizeof("\"metadata\":\"\",") + 6 * mlen);
        if (!out)
                return tsync_error(err, ENOMEM, "out of memory");
        size_t o = 0;
        out[o++] = '{';
        /* runc leaves an empty listenerMetadata out (omitempty). */
        if (mlen > 0) {
                memcpy(out + o, "\"metadata\":\"", 12);
                o += 12;
                for (size_t i = 0; i < mlen; i++) {
                        unsigned char c = (unsigned char)metadata[i];
                        if (c == '"' || c == '\\') {
                                out[o++] = '\\';
                                out[o++] = (char)c;
                        } else if (c < 0x20) {
                                memcpy(out + o, "\\u00", 4);
                                out[o + 4] = hex[c >> 4];
                                out[o + 5] = hex[c & 15];
                                o += 6;
                        } else {
                                out[o++] = (char)c;
                        }
                }
                out[o++] = '"';
                if (state[1] != '}')
                        out[o++] = ',';
        }
        memcpy(out + o, state + 1, len - 1);
        o += len - 1;
        *ret = out;
        *ret_len = o;
        return 0;
}
