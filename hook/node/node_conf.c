/* node.conf's reader (node_conf.h). Strict where runtime.conf is lenient:
 * every command and front end that reads it is about to act on every
 * container, so the first bad line refuses the whole file, with the line and
 * the fix, rather than acting on part of a policy. */
#include "node/node_conf.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "shared/cleanup.h"
#include "util/conf_line.h"
#include "util/fileio.h"
#include "util/nearest.h"
#include "util/quote.h"

static const char *const settings[] = { "layers", "no-new-privs", "exclude" };
#define SETTINGS "layers, no-new-privs, exclude"

/* The engines an exclusion may name; kubernetes's names are NAMESPACE/POD[/CONTAINER]. */
static const char *const engines[] = { "runc", "crun", "containerd", "docker", "podman", "kubernetes" };
#define ENGINES    "runc, crun, containerd, docker, podman, kubernetes"
#define KUBERNETES "kubernetes"

#define EXCLUDE_FORM "exclude = NAME: WHY"

struct reader {
        const char *path;
        unsigned line;
        unsigned layers_line, nnp_line; /* where each was given first (0: not yet) */
        struct tsync_node_policy *p;
        struct tsync_err *err;
};

/* "PATH: line N: <what>": the one line the caller prints. */
static int fail(const struct reader *rd, int code, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int fail(const struct reader *rd, int code, const char *fmt, ...)
{
        char what[TSYNC_ERR_MSG_MAX];
        va_list ap;
        va_start(ap, fmt);
        (void)vsnprintf(what, sizeof(what), fmt, ap);
        va_end(ap);
        return tsync_error(rd->err, code, "%s: line %u: %s", rd->path, rd->line, what);
}

/* Text of the file in a message: escaped (a stray control byte cannot
 * rewrite the terminal) and cut, with "...", so the message stays short. */
#define SHOWN_SIZE 84
static const char *shown(char buf[SHOWN_SIZE], const char *s)
{
        if (tsync_quote(buf, SHOWN_SIZE - 3, s, strlen(s)) >= SHOWN_SIZE - 3)
                strcat(buf, "...");
        return buf;
}

/* A value that cannot hold '#' ends at one: the rest is a comment. */
static char *uncomment(char *value)
{
        char *hash = strchr(value, '#');
        if (hash)
                *hash = '\0';
        return tsync_trim(value);
}

/* A key that may be given once: true (said in rd's error) when it was
 * given before, else its line is noted in *first. */
static bool given_twice(struct reader *rd, unsigned *first, const char *key)
{
        if (*first) {
                (void)fail(rd, EINVAL, "%s is given twice (first on line %u): keep one %s line", key, *first, key);
                return true;
        }
        *first = rd->line;
        return false;
}

static int set_layers(struct reader *rd, char *value)
{
        struct tsync_node_policy *p = rd->p;
        char a[SHOWN_SIZE];

        if (given_twice(rd, &rd->layers_line, "layers"))
                return -EINVAL;
        value = uncomment(value);
        if (!*value)
                return fail(rd, EINVAL, "layers is empty: name the profiles (layers = NAME, NAME) or remove the line");
        for (char *next = value; next;) {
                char *comma = strchr(next, ',');
                if (comma)
                        *comma = '\0';
                char *name = tsync_trim(next);
                next = comma ? comma + 1 : NULL;
                if (!*name)
                        return fail(rd, EINVAL, "layers: an empty name: separate the names with one comma each");
                if (!tsync_layer_name_valid(name))
                        return fail(rd, EINVAL,
                                    "layers: '%s' is not a profile name: name a profile of the profile directories "
                                    "(letters, digits, '_', '-', '.'; not starting with '.'; no '/')",
                                    shown(a, name));
                for (size_t i = 0; i < p->n_layers; i++)
                        if (strcmp(p->layers[i], name) == 0)
                                return fail(rd, EINVAL, "layers: '%s' is named twice: name each profile once",
                                            shown(a, name));
                if (p->n_layers == TSYNC_MAX_LAYERS)
                        return fail(rd, E2BIG, "layers: more than %d names: at most %d layers", TSYNC_MAX_LAYERS,
                                    TSYNC_MAX_LAYERS);
                if (!(p->layers[p->n_layers] = strdup(name)))
                        return tsync_error(rd->err, ENOMEM, "out of memory");
                p->n_layers++;
        }
        return 0;
}

static int set_nnp(struct reader *rd, char *value)
{
        char a[SHOWN_SIZE];

        if (given_twice(rd, &rd->nnp_line, "no-new-privs"))
                return -EINVAL;
        value = uncomment(value);
        if (strcmp(value, "set") == 0)
                rd->p->nnp = TSYNC_NODE_NNP_SET;
        else if (strcmp(value, "refuse") == 0)
                rd->p->nnp = TSYNC_NODE_NNP_REFUSE;
        else if (!*value)
                return fail(rd, EINVAL, "no-new-privs is empty: no-new-privs = set, or refuse");
        else
                return fail(rd, EINVAL, "no-new-privs: '%s' is neither set nor refuse: no-new-privs = set, or refuse",
                            shown(a, value));
        rd->p->nnp_given = true;
        return 0;
}

static bool target_char(char c)
{
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '.' ||
               c == '-' || c == '/';
}

static size_t count(const char *s, char c)
{
        size_t n = 0;
        for (; *s; s++)
                n += *s == c;
        return n;
}

/* target (as written) into its engine, or NULL, and the name after it. */
static int split_target(const struct reader *rd, const char *target, const char **ret_engine, const char **ret_name)
{
        char a[SHOWN_SIZE];
        size_t len = strlen(target);

        for (const char *c = target; *c; c++)
                if (!target_char(*c))
                        return fail(rd, EINVAL,
                                    "exclude: '%s' is not a container's name or id (letters, digits, '_', '.', '-'; "
                                    "ENGINE/NAME; kubernetes/NAMESPACE/POD[/CONTAINER])",
                                    shown(a, target));
        if (target[0] == '/' || target[len - 1] == '/' || strstr(target, "//"))
                return fail(rd, EINVAL, "exclude: '%s' has an empty part: ENGINE/NAME, or the name alone",
                            shown(a, target));
        const char *slash = strchr(target, '/');
        *ret_engine = NULL;
        *ret_name = target;
        if (!slash)
                return 0;
        size_t n = (size_t)(slash - target);
        for (size_t i = 0; i < ARRAY_SIZE(engines) && !*ret_engine; i++)
                if (strlen(engines[i]) == n && strncmp(target, engines[i], n) == 0)
                        *ret_engine = engines[i];
        if (!*ret_engine)
                return fail(rd, EINVAL,
                            "exclude: '%.*s' in '%s' is not an engine (" ENGINES "): ENGINE/NAME, or the "
                            "name alone",
                            (int)n, target, shown(a, target));
        *ret_name = slash + 1;
        size_t parts = count(*ret_name, '/') + 1;
        if (strcmp(*ret_engine, KUBERNETES) == 0 && parts != 2 && parts != 3)
                return fail(rd, EINVAL,
                            "exclude: '%s' is not a pod or a container: kubernetes/NAMESPACE/POD or "
                            "kubernetes/NAMESPACE/POD/CONTAINER",
                            shown(a, target));
        if (strcmp(*ret_engine, KUBERNETES) != 0 && parts != 1)
                return fail(rd, EINVAL, "exclude: '%s' has a '/' too many: a %s container is %s/NAME", shown(a, target),
                            *ret_engine, *ret_engine);
        return 0;
}

static int add_exclude(struct reader *rd, char *value)
{
        struct tsync_node_policy *p = rd->p;
        char a[SHOWN_SIZE];

        if (p->n_excludes == TSYNC_NODE_MAX_EXCLUDES)
                return fail(rd, E2BIG, "more than %d exclude lines: exclude fewer containers, or by pod",
                            TSYNC_NODE_MAX_EXCLUDES);
        char *colon = strchr(value, ':');
        if (!colon)
                return fail(rd, EINVAL, "exclude needs a reason: " EXCLUDE_FORM);
        *colon = '\0';
        const char *target = tsync_trim(value), *reason = tsync_trim(colon + 1);
        if (!*target)
                return fail(rd, EINVAL, "exclude names no container: " EXCLUDE_FORM);
        if (!*reason)
                return fail(rd, EINVAL, "exclude needs a reason: " EXCLUDE_FORM);
        const char *engine = NULL, *name = target;
        int r = split_target(rd, target, &engine, &name);
        if (r < 0)
                return r;
        size_t len = strlen(reason);
        if (len > TSYNC_NODE_REASON_MAX)
                return fail(rd, EINVAL, "exclude: the reason is %zu bytes, at most %d: shorten it", len,
                            TSYNC_NODE_REASON_MAX);
        for (const char *c = reason; *c; c++)
                if (((unsigned char)*c < 0x20 && *c != '\t') || *c == 0x7f)
                        return fail(rd, EINVAL, "exclude: the reason holds a control character: write it as text");
        for (size_t i = 0; i < p->n_excludes; i++)
                if (p->excludes[i].engine == engine && strcmp(p->excludes[i].target, name) == 0)
                        return fail(rd, EINVAL, "exclude: '%s' is excluded already on line %u: keep one line",
                                    shown(a, target), p->excludes[i].line);
        struct tsync_node_exclude *grown = realloc(p->excludes, (p->n_excludes + 1) * sizeof(*grown));
        if (!grown)
                return tsync_error(rd->err, ENOMEM, "out of memory");
        p->excludes = grown;
        struct tsync_node_exclude *e = &p->excludes[p->n_excludes];
        *e = (struct tsync_node_exclude){ .engine = engine, .line = rd->line };
        e->target = strdup(name);
        e->reason = strdup(reason);
        /* Counted before the check: clear frees what was half made. */
        p->n_excludes++;
        if (!e->target || !e->reason)
                return tsync_error(rd->err, ENOMEM, "out of memory");
        return 0;
}

static int read_line(struct reader *rd, char *line)
{
        char a[SHOWN_SIZE];

        char *key, *value;
        int kv = tsync_conf_line(line, &key, &value);
        if (kv == 0)
                return 0;
        if (kv < 0)
                return fail(rd, EINVAL, "expected 'key = value' (" SETTINGS ")");
        if (strcmp(key, "layers") == 0)
                return set_layers(rd, value);
        if (strcmp(key, "no-new-privs") == 0)
                return set_nnp(rd, value);
        if (strcmp(key, "exclude") == 0)
                return add_exclude(rd, value);
        if (!*key)
                return fail(rd, EINVAL, "expected 'key = value' (" SETTINGS ")");
        const char *near = tsync_nearest_word(key, settings, ARRAY_SIZE(settings));
        if (near)
                return fail(rd, EINVAL, "'%s' is not a setting (" SETTINGS "): did you mean '%s'?", shown(a, key),
                            near);
        return fail(rd, EINVAL, "'%s' is not a setting (" SETTINGS ")", shown(a, key));
}

/* The file's text, if root's alone; -errno with the file and the fix named. */
static int read_text(const char *path, char **ret, size_t *ret_len, struct tsync_err *err)
{
        struct stat st;
        int r = tsync_read_file_at(AT_FDCWD, path, path,
                                   TSYNC_READ_NOFOLLOW | TSYNC_READ_OPEN_NONBLOCK | TSYNC_READ_REGULAR,
                                   TSYNC_NODE_CONF_MAX_BYTES, ret, ret_len, &st, err);
        if (r == -ELOOP)
                return tsync_error(err, ELOOP,
                                   "%s: a symbolic link: put the file itself there (owned by root, writable by root "
                                   "alone)",
                                   path);
        if (r == -EISDIR || r == -EINVAL)
                return tsync_error(err, -r,
                                   "%s: not a regular file: the node's policy is a file owned by root, writable by "
                                   "root alone",
                                   path);
        if (r < 0)
                return r;
        if (st.st_uid != 0 || (st.st_mode & 022)) {
                free(TAKE_PTR(*ret));
                return tsync_error(err, EPERM,
                                   "%s: owned by uid %u with mode %04o: it decides what every container on the node "
                                   "gets, so it must belong to root and be writable by root alone (chown root, "
                                   "chmod go-w)",
                                   path, (unsigned)st.st_uid, (unsigned)(st.st_mode & 07777));
        }
        return 0;
}

int tsync_node_policy_read(const char *path, struct tsync_node_policy *ret, struct tsync_err *err)
{
        _cleanup_free_ char *text = NULL;
        size_t len;

        *ret = (struct tsync_node_policy){ 0 };
        int r = read_text(path, &text, &len, err);
        if (r == -ENOENT)
                return 0;
        if (r < 0)
                return r;
        _cleanup_(tsync_node_policy_clear) struct tsync_node_policy p = { .present = true };
        struct reader rd = { .path = path, .p = &p, .err = err };
        /* A NUL would end the text early and hide the lines after it. */
        size_t nul = strlen(text);
        if (nul != len) {
                rd.line = (unsigned)count(text, '\n') + 1;
                return fail(&rd, EINVAL, "a NUL byte: the node's policy is a text file");
        }
        char *next = text;
        while (next) {
                char *line = next;
                char *nl = strchr(line, '\n');
                if (nl)
                        *nl = '\0';
                next = nl ? nl + 1 : NULL;
                rd.line++;
                r = read_line(&rd, line);
                if (r < 0)
                        return r;
        }
        *ret = p;
        p = (struct tsync_node_policy){ 0 };
        return 0;
}

void tsync_node_policy_clear(struct tsync_node_policy *p)
{
        if (!p)
                return;
        for (size_t i = 0; i < p->n_layers; i++)
                free(p->layers[i]);
        for (size_t i = 0; i < p->n_excludes; i++) {
                free(p->excludes[i].target);
                free(p->excludes[i].reason);
        }
        free(p->excludes);
        *p = (struct tsync_node_policy){ 0 };
}

static bool short_id(const char *target)
{
        size_t n = strspn(target, "0123456789abcdef");
        return n == strlen(target) && n >= TSYNC_NODE_ID_PREFIX_MIN;
}

static bool covers(const struct tsync_node_exclude *e, const char *id, const char *name)
{
        /* kubernetes/NAMESPACE/POD[/CONTAINER]: the pod's containers, or the one. */
        if (strchr(e->target, '/')) {
                size_t n = strlen(e->target);
                return name && strncmp(name, e->target, n) == 0 &&
                       (name[n] == '\0' || (name[n] == '/' && count(e->target, '/') == 1));
        }
        if (name && strcmp(name, e->target) == 0)
                return true;
        if (!id)
                return false;
        /* Only hex for a prefix: a name such as "web" must not cover "web-2". */
        return strcmp(id, e->target) == 0 || (short_id(e->target) && strncmp(id, e->target, strlen(e->target)) == 0);
}

const struct tsync_node_exclude *tsync_node_policy_excluded(const struct tsync_node_policy *p, const char *engine,
                                                            const char *id, const char *name)
{
        for (size_t i = 0; p && i < p->n_excludes; i++) {
                const struct tsync_node_exclude *e = &p->excludes[i];
                if (e->engine && (!engine || strcmp(e->engine, engine) != 0))
                        continue;
                if (covers(e, id, name))
                        return e;
        }
        return NULL;
}
