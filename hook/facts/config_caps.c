#include "facts/config_caps.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "shared/cap_kernel.h"
#include "shared/capnames.h"
#include "shared/capsets.h"
#include "shared/cleanup.h"

/* The last capability this kernel has, as runc reads /proc/sys/kernel/cap_last_cap,
 * probed as the init probes it (no libcap); the table's last when the kernel
 * answers nothing. Found once for a set of names, not for each name. */
static unsigned kernel_last_cap(void)
{
        int last;
        if (tsync_cap_kernel_last(&last) < 0)
                return TSYNC_CAPNAME_LAST;
        return (unsigned)last;
}

static int cap_runc(const char *name, size_t len, unsigned last)
{
        int c = tsync_capname_lookup(name, len);
        return c >= 0 && (unsigned)c <= last ? c : -1;
}

int tsync_cap_from_name(const char *name, unsigned *ret)
{
        char buf[64];
        size_t off = 0, len = strlen(name);

        if (len == 0 || len + 5 > sizeof(buf))
                return -EINVAL;
        /* A name typed by a user: "sys_admin", "cap_sys_admin" and "CAP_SYS_ADMIN" alike. */
        if (strncasecmp(name, "cap_", 4) != 0) {
                memcpy(buf, "CAP_", 4);
                off = 4;
        }
        for (size_t i = 0; i < len; i++)
                buf[off + i] = (char)toupper((unsigned char)name[i]);
        int c = tsync_capname_lookup(buf, off + len);
        if (c < 0)
                return -EINVAL;
        *ret = (unsigned)c;
        return 0;
}

/* The engines' default sets, for --caps: a Docker-format profile judged as
 * the engine would judge it without typing the list out. Docker's from moby's
 * oci/caps/defaults.go (DefaultCapabilities), Podman's from containers-common's
 * containers.conf (default_capabilities). */
static const struct {
        const char *name;
        const char *list;
} caps_presets[] = {
        { "docker-default", "CAP_CHOWN,CAP_DAC_OVERRIDE,CAP_FSETID,CAP_FOWNER,CAP_MKNOD,CAP_NET_RAW,CAP_SETGID,"
                            "CAP_SETUID,CAP_SETFCAP,CAP_SETPCAP,CAP_NET_BIND_SERVICE,CAP_SYS_CHROOT,CAP_KILL,"
                            "CAP_AUDIT_WRITE" },
        { "podman-default", "CAP_CHOWN,CAP_DAC_OVERRIDE,CAP_FOWNER,CAP_FSETID,CAP_KILL,CAP_NET_BIND_SERVICE,"
                            "CAP_SETFCAP,CAP_SETGID,CAP_SETPCAP,CAP_SETUID,CAP_SYS_CHROOT" },
};

int tsync_caps_parse_list(const char *list, uint64_t *ret, struct tsync_err *err)
{
        uint64_t caps = 0;
        for (size_t i = 0; i < ARRAY_SIZE(caps_presets); i++)
                if (strcmp(list, caps_presets[i].name) == 0)
                        list = caps_presets[i].list;
        if (strcmp(list, "all") == 0) {
                unsigned last = kernel_last_cap();
                *ret = last >= 63 ? UINT64_MAX : ((uint64_t)1 << (last + 1)) - 1;
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

int tsync_cap_runc(const char *name, size_t len)
{
        return cap_runc(name, len, kernel_last_cap());
}

int tsync_caps_from_json(const struct tsync_json *arr, const char *path, uint64_t *ret, struct tsync_err *err)
{
        uint64_t caps = 0;
        int r = tsync_json_expect(arr, path, TSYNC_JSON_ARRAY, err);
        if (r < 0)
                return r;
        unsigned last = kernel_last_cap();
        for (size_t i = 0; i < arr->u.array.len; i++) {
                const struct tsync_json *v = arr->u.array.items[i];
                char at[256];
                (void)snprintf(at, sizeof(at), "%.200s[%zu]", path, i);
                r = tsync_json_expect(v, at, TSYNC_JSON_STRING, err);
                if (r < 0)
                        return r;
                int c = cap_runc(v->u.string.ptr, v->u.string.len, last);
                if (c >= 0)
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
        const struct tsync_json *b = tsync_json_get(capabilities, tsync_capset(TSYNC_CAPSET_BOUNDING)->json);
        if (!b) {
                *ret = 0;
                return 0;
        }
        return tsync_caps_from_json(b, path, ret, err);
}

/* A name as it can go into one warning line: bytes outside printable ASCII as \xNN. */
static int put_name(FILE *f, const struct tsync_json *v)
{
        for (size_t i = 0; i < v->u.string.len; i++) {
                unsigned char ch = (unsigned char)v->u.string.ptr[i];
                if (ch < 0x20 || ch >= 0x7f || ch == '\\')
                        fprintf(f, "\\x%02x", ch);
                else
                        fputc(ch, f);
        }
        return 0;
}

static int cmp_json_string(const void *a, const void *b)
{
        const struct tsync_json *x = *(const struct tsync_json *const *)a, *y = *(const struct tsync_json *const *)b;
        size_t n = x->u.string.len < y->u.string.len ? x->u.string.len : y->u.string.len;
        int r = memcmp(x->u.string.ptr, y->u.string.ptr, n);
        if (r)
                return r;
        return x->u.string.len < y->u.string.len ? -1 : x->u.string.len > y->u.string.len;
}

int tsync_caps_warn_ignored(const struct tsync_json *capabilities, struct tsync_warnings *w, struct tsync_err *err)
{
        size_t n = 0, cap = 0;
        _cleanup_free_ const struct tsync_json **ignored = NULL;

        if (!capabilities || capabilities->type != TSYNC_JSON_OBJECT)
                return 0;
        unsigned last = kernel_last_cap();
        for (int s = 0; s < TSYNC_CAPSET_COUNT; s++) {
                const struct tsync_json *arr = tsync_json_get(capabilities, tsync_capset(s)->json);
                for (size_t i = 0; arr && arr->type == TSYNC_JSON_ARRAY && i < arr->u.array.len; i++) {
                        const struct tsync_json *v = arr->u.array.items[i];
                        if (v->type != TSYNC_JSON_STRING || cap_runc(v->u.string.ptr, v->u.string.len, last) >= 0)
                                continue;
                        if (n == cap) {
                                size_t want = cap ? 2 * cap : 8;
                                const struct tsync_json **more = realloc(ignored, want * sizeof(*more));
                                if (!more)
                                        return tsync_error(err, ENOMEM, "out of memory");
                                ignored = more;
                                cap = want;
                        }
                        ignored[n++] = v;
                }
        }
        if (n == 0)
                return 0;
        /* runc's own line: each name once, sorted, in brackets. */
        qsort(ignored, n, sizeof(*ignored), cmp_json_string);
        _cleanup_free_ char *list = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&list, &len);
        if (!f)
                return tsync_error(err, ENOMEM, "out of memory");
        for (size_t i = 0, k = 0; i < n; i++) {
                if (i > 0 && cmp_json_string(&ignored[i - 1], &ignored[i]) == 0)
                        continue;
                if (k++)
                        fputc(' ', f);
                (void)put_name(f, ignored[i]);
        }
        if (fclose(f) != 0)
                return tsync_error(err, ENOMEM, "out of memory");
        if (tsync_warn(w,
                       "process.capabilities: ignoring unknown or unavailable capabilities: [%s] (left out, as "
                       "runc leaves them out: only exact names such as CAP_SYS_ADMIN count)",
                       list) < 0)
                return tsync_error(err, ENOMEM, "out of memory");
        return 0;
}
