/* The one table of our annotations (annotations.h). */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "facts/annotations.h"
#include "shared/cleanup.h"
#include "shared/error.h"
#include "util/json.h"

/* inject reads its request from its options alone: an annotation asking the
 * same would be silently left out of what it writes. */
#define NOT_INJECT(option) "not read by inject, which takes " option " instead: remove the annotation"

const struct tsync_annotation_def tsync_annotation_table[] = {
        {
                .name = TSYNC_ANNOTATION_LAYERS,
                .setter = TSYNC_ANNOTATION_BY_USER,
                .asks_for_us = true,
                .value = "profile names, separated by ',', ';', ':' or blanks",
                .refused = { [TSYNC_FRONTEND_INJECT] = NOT_INJECT("--profile FILE") },
        },
        {
                .name = TSYNC_ANNOTATION_MODE,
                .setter = TSYNC_ANNOTATION_BY_USER,
                .asks_for_us = true,
                .value = "layer or replace",
                .refused = { [TSYNC_FRONTEND_INJECT] = NOT_INJECT("--replace") },
        },
        {
                .name = TSYNC_ANNOTATION_EXEC,
                .setter = TSYNC_ANNOTATION_BY_USER,
                .asks_for_us = true,
                .value = "once or once:ERRNO",
                .refused = { [TSYNC_FRONTEND_INJECT] = NOT_INJECT("--exec-once[=ERRNO]") },
        },
        {
                .name = TSYNC_ANNOTATION_RECORD,
                .setter = TSYNC_ANNOTATION_BY_USER,
                .asks_for_us = true,
                .needs_poststop = true, /* the profile is written there */
                .value = "[if:IN;]of:OUT[;format:oci|docker][;errno:EPERM|ENOSYS]",
                /* The wrapper writes it at the container's `delete`, which
                 * passes through it (hook/runtime/delete.c), as poststop does
                 * elsewhere. */
                .refused = { [TSYNC_FRONTEND_INJECT] = NOT_INJECT("--record OUT") },
        },
        {
                .name = TSYNC_ANNOTATION_PLAN,
                .setter = TSYNC_ANNOTATION_BY_US,
                /* A config that reaches the wrapper with it is refused by the
                 * rewrite, never run as it is. */
                .asks_for_us = true,
        },
        {
                .name = TSYNC_ANNOTATION_RUNNING,
                .setter = TSYNC_ANNOTATION_BY_US,
                .asks_for_us = true,
        },
        {
                /* crun's, honoured wherever we compile; alone it asks for nothing. */
                .name = TSYNC_ANNOTATION_CRUN_FAIL_UNKNOWN,
                .setter = TSYNC_ANNOTATION_BY_USER,
                .asks_for_us = false,
                .value = "anything but 0",
        },
};
const size_t tsync_annotation_count = ARRAY_SIZE(tsync_annotation_table);

const struct tsync_sandbox_mark tsync_sandbox_marks[] = {
        /* containerd's CRI plugin (pkg/cri/annotations): "sandbox" or
         * "container"; the pause's container id is the sandbox id. Its shim,
         * containerd-shim-runc-v2, runs the runtime. */
        { .engine = "containerd",
          .name = "io.kubernetes.cri.container-type",
          .value = "sandbox",
          .id_name = "io.kubernetes.cri.sandbox-id",
          .runner = "containerd-shim" },
        /* CRI-O (internal/annotations): "sandbox" or "container"; its infra
         * container's id is the sandbox id. conmon runs the runtime. */
        { .engine = "CRI-O",
          .name = "io.kubernetes.cri-o.ContainerType",
          .value = "sandbox",
          .id_name = "io.kubernetes.cri-o.SandboxID",
          .runner = "conmon" },
};
const size_t tsync_sandbox_mark_count = ARRAY_SIZE(tsync_sandbox_marks);

static bool string_is(const struct tsync_json *v, const char *s)
{
        return v && v->type == TSYNC_JSON_STRING && s && v->u.string.len == strlen(s) &&
               memcmp(v->u.string.ptr, s, v->u.string.len) == 0;
}

const struct tsync_sandbox_mark *tsync_annotations_sandbox(const struct tsync_json *config, const char *runner_comm,
                                                           const char *id)
{
        const struct tsync_json *annotations = tsync_json_get(config, "annotations");
        for (size_t i = 0; runner_comm && i < tsync_sandbox_mark_count; i++) {
                const struct tsync_sandbox_mark *m = &tsync_sandbox_marks[i];
                if (strncmp(runner_comm, m->runner, strlen(m->runner)) == 0 &&
                    string_is(tsync_json_get(annotations, m->name), m->value) &&
                    string_is(tsync_json_get(annotations, m->id_name), id))
                        return m;
        }
        return NULL;
}

const struct tsync_sandbox_mark *tsync_annotations_pod(const struct tsync_json *config)
{
        const struct tsync_json *annotations = tsync_json_get(config, "annotations");
        for (size_t i = 0; i < tsync_sandbox_mark_count; i++)
                if (tsync_json_get(annotations, tsync_sandbox_marks[i].name))
                        return &tsync_sandbox_marks[i];
        return NULL;
}

const struct tsync_annotation_def *tsync_annotation_find(const char *name)
{
        for (size_t i = 0; i < tsync_annotation_count; i++)
                if (strcmp(tsync_annotation_table[i].name, name) == 0)
                        return &tsync_annotation_table[i];
        return NULL;
}

const char *tsync_frontend_name(enum tsync_frontend fe)
{
        static const char *const names[] = {
                [TSYNC_FRONTEND_PRECREATE] = "precreate",
                [TSYNC_FRONTEND_RUNTIME] = "oci-seccomp-tsync-runtime",
                [TSYNC_FRONTEND_INJECT] = "inject",
        };
        _Static_assert(ARRAY_SIZE(names) == TSYNC_FRONTEND_COUNT, "a name for every front end");
        return (unsigned)fe < TSYNC_FRONTEND_COUNT ? names[fe] : "?";
}

/* "layers, mode, exec, record": the user's names under our prefix. */
static void user_names(char *buf, size_t size)
{
        size_t n = 0;
        buf[0] = '\0';
        for (size_t i = 0; i < tsync_annotation_count && n < size; i++) {
                const struct tsync_annotation_def *a = &tsync_annotation_table[i];
                if (a->setter != TSYNC_ANNOTATION_BY_USER ||
                    strncmp(a->name, TSYNC_ANNOTATION_PREFIX, strlen(TSYNC_ANNOTATION_PREFIX)) != 0)
                        continue;
                int w = snprintf(buf + n, size - n, "%s%s", n ? ", " : "", a->name + strlen(TSYNC_ANNOTATION_PREFIX));
                if (w < 0)
                        return;
                n += (size_t)w;
        }
}

int tsync_annotations_check(const struct tsync_json *config, enum tsync_frontend fe, bool *ret_asks,
                            struct tsync_err *err)
{
        const struct tsync_json *annotations = tsync_json_get(config, "annotations");
        bool asks = false;
        /* Not an object: the runtime refuses it, and nothing in it is ours. */
        for (size_t i = 0; annotations && annotations->type == TSYNC_JSON_OBJECT && i < annotations->u.object.len;
             i++) {
                const char *key = annotations->u.object.keys[i];
                const struct tsync_annotation_def *a = tsync_annotation_find(key);
                if (!a && strncmp(key, TSYNC_ANNOTATION_PREFIX, strlen(TSYNC_ANNOTATION_PREFIX)) == 0) {
                        char known[128];
                        user_names(known, sizeof(known));
                        return tsync_error(err, EINVAL,
                                           "annotations.%s: not an annotation of oci-seccomp-tsync (the user's are "
                                           "%s): refused, so that a misspelt one never runs the container without "
                                           "what it asked",
                                           key, known);
                }
                if (!a)
                        continue;
                if (a->setter == TSYNC_ANNOTATION_BY_USER && a->refused[fe])
                        return tsync_error(err, EINVAL, "annotations.%s: %s", key, a->refused[fe]);
                asks = asks || a->asks_for_us;
        }
        if (ret_asks)
                *ret_asks = asks;
        return 0;
}
