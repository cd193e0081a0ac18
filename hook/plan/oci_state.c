/* The OCI state on a hook's stdin (plan/oci_state.h). */
#include "plan/oci_state.h"

#include <errno.h>
#include <string.h>

#include "shared/cleanup.h"

#define STATE_MAX_BYTES (1u << 20)

int tsync_oci_state_read(int fd, struct tsync_oci_state *st, struct tsync_json **ret_doc, struct tsync_err *err)
{
        struct tsync_json_limits lim = { .max_bytes = STATE_MAX_BYTES };
        _cleanup_json_ struct tsync_json *doc = NULL;
        const char *id, *bundle;
        int r = tsync_json_parse_fd(fd, &lim, &doc, err);
        if (r < 0)
                return tsync_error_prefix(err, "the OCI state on stdin");
        r = tsync_json_str(tsync_json_get(doc, "id"), "state.id", &id, err);
        if (r == 0)
                r = tsync_json_str(tsync_json_get(doc, "bundle"), "state.bundle", &bundle, err);
        if (r < 0)
                return tsync_error_prefix(err, "the OCI state on stdin");
        if (!*id || strlen(id) >= sizeof(st->id))
                return tsync_error(err, EINVAL, "the OCI state on stdin: state.id: empty or too long");
        for (const char *c = id; *c; c++)
                if (*c < 0x21 || *c > 0x7e)
                        return tsync_error(err, EINVAL, "the OCI state on stdin: state.id: not printable");
        if (bundle[0] != '/' || strlen(bundle) >= sizeof(st->bundle))
                return tsync_error(err, EINVAL, "the OCI state on stdin: state.bundle: '%s' is not an absolute path",
                                   bundle);
        strcpy(st->id, id);
        strcpy(st->bundle, bundle);
        if (ret_doc)
                *ret_doc = TAKE_PTR(doc);
        return 0;
}
