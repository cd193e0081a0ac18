#include "tsync/caps.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/capability.h>

#include "tsync/cleanup.h"

int tsync_cap_from_name(const char *name, unsigned *ret)
{
        char buf[64];
        cap_value_t v;

        if (strlen(name) + 5 > sizeof(buf) || !*name)
                return -EINVAL;
        /* libcap reads "cap_sys_admin"; accept the runtime-spec's "CAP_SYS_ADMIN" and bare "sys_admin". */
        size_t off = 0;
        if (strncasecmp(name, "cap_", 4) != 0) {
                memcpy(buf, "cap_", 4);
                off = 4;
        }
        size_t i = 0;
        for (; name[i]; i++)
                buf[off + i] = (char)tolower((unsigned char)name[i]);
        buf[off + i] = '\0';
        /* cap_from_name also takes numbers; a capability must be named. */
        if (isdigit((unsigned char)buf[4]) || cap_from_name(buf, &v) != 0 || v < 0 || v > 63)
                return -EINVAL;
        *ret = (unsigned)v;
        return 0;
}

int tsync_caps_parse_list(const char *list, uint64_t *ret, struct tsync_err *err)
{
        uint64_t caps = 0;
        if (strcmp(list, "all") == 0) {
                int last = cap_max_bits();
                *ret = last >= 64 ? UINT64_MAX : ((uint64_t)1 << last) - 1;
                return 0;
        }
        if (strcmp(list, "none") == 0 || !*list) {
                *ret = 0;
                return 0;
        }
        _cleanup_free_ char *copy = strdup(list);
        if (!copy)
                return tsync_error(err, ENOMEM, "out of memory");
        char *save = NULL;
        for (char *tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
                unsigned c;
                if (tsync_cap_from_name(tok, &c) < 0)
                        return tsync_error(err, EINVAL, "capability '%s' is unknown", tok);
                caps |= (uint64_t)1 << c;
        }
        *ret = caps;
        return 0;
}

int tsync_caps_from_json(const struct tsync_json *arr, const char *path, uint64_t *ret, struct tsync_err *err)
{
        uint64_t caps = 0;
        int r = tsync_json_expect(arr, path, TSYNC_JSON_ARRAY, err);
        if (r < 0)
                return r;
        for (size_t i = 0; i < arr->u.array.len; i++) {
                const char *s;
                unsigned c;
                char at[256];
                (void)snprintf(at, sizeof(at), "%.200s[%zu]", path, i);
                r = tsync_json_str(arr->u.array.items[i], at, &s, err);
                if (r < 0)
                        return r;
                if (tsync_cap_from_name(s, &c) < 0)
                        return tsync_error(err, EINVAL, "%s: capability '%s' is unknown", at, s);
                caps |= (uint64_t)1 << c;
        }
        *ret = caps;
        return 0;
}

int tsync_caps_bounding_of(const struct tsync_json *capabilities, const char *path, uint64_t *ret,
                           struct tsync_err *err)
{
        if (!capabilities)
                return tsync_caps_parse_list("all", ret, err);
        const struct tsync_json *b = tsync_json_get(capabilities, "bounding");
        if (!b) {
                *ret = 0;
                return 0;
        }
        return tsync_caps_from_json(b, path, ret, err);
}
