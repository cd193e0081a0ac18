/* The config file: "key = value" lines, '#' comments. It names the real
 * runtime that root will execute, so it must be root's (or ours) and
 * writable by its owner alone. Only create and run are refused over a bad
 * one: every other command (state, kill, delete, ...) must still reach the
 * real runtime, or an engine could no longer stop its containers. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <syslog.h>
#include <unistd.h>

#include "frontend/frontend.h"
#include "plan/plan.h"
#include "plan/plan_record.h"
#include "plan/record_place.h"
#include "runtime.h"
#include "shared/cleanup.h"
#include "shared/errnos.h"
#include "util/conf_line.h"
#include "util/fileio.h"

/* A problem with the file: refused (strict), or, for a command that creates
 * nothing, a line left out and said in the system log alone (stderr is
 * runc's output to some engines: `state` is read as JSON from both). */
static void complain(bool strict, const char *path, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void complain(bool strict, const char *path, const char *fmt, ...)
{
        va_list ap;
        va_start(ap, fmt);
        _cleanup_free_ char *msg = frontend_vformat(fmt, ap);
        va_end(ap);
        if (strict) {
                frontend_errorf(path, "%s", msg ? msg : fmt);
                return;
        }
        _cleanup_free_ char *text = NULL;
        if (asprintf(&text, "%s: warning: %s (ignored: this command creates no container)", path, msg ? msg : fmt) >= 0)
                frontend_syslog(LOG_WARNING, text);
}

/* One setting; the command line's (already in s) wins. */
static int conf_set(struct rt_settings *s, bool dirs_given, const char *key, const char *value)
{
        if (strcmp(key, "runtime") == 0) {
                if (!s->runtime)
                        s->runtime = value;
        } else if (strcmp(key, "layers") == 0) {
                if (!s->layers)
                        s->layers = value;
        } else if (strcmp(key, "mode") == 0) {
                if (!s->mode)
                        s->mode = value;
        } else if (strcmp(key, "cache-dir") == 0) {
                if (!s->cache_dir)
                        s->cache_dir = value;
        } else if (strcmp(key, "no-cache") == 0) {
                if (strcmp(value, "true") != 0 && strcmp(value, "false") != 0)
                        return -EINVAL;
                if (!s->cache_dir)
                        s->no_cache = strcmp(value, "true") == 0;
        } else if (strcmp(key, "record-dir") == 0) {
                if (!s->record_dir)
                        s->record_dir = value;
        } else if (strcmp(key, "profile-dir") == 0) {
                if (dirs_given)
                        return 0;
                if (s->n_profile_dirs == RT_MAX_DIRS)
                        return -E2BIG;
                s->profile_dirs[s->n_profile_dirs++] = value;
        } else
                return -ENOENT;
        return 0;
}

#define CONF_MAX_BYTES (64u << 10)

/* The whole file into s->conf_text (values point into it), if it is root's
 * alone. 0, 1 when it is missing, or -1 after saying why. */
static int read_text(const char *path, bool strict, struct rt_settings *s)
{
        struct tsync_err err = { 0 };
        struct stat st;
        size_t len;
        int r = tsync_read_file_at(AT_FDCWD, path, NULL, TSYNC_READ_REGULAR, CONF_MAX_BYTES, &s->conf_text, &len, &st,
                                   &err);
        if (r == -ENOENT)
                return 1;
        if (r < 0) {
                complain(strict, path, "%s", err.msg);
                return -1;
        }
        if ((st.st_uid != 0 && st.st_uid != geteuid()) || (st.st_mode & 022)) {
                complain(strict, path,
                         "owned by uid %u with mode %04o: it names the program this runtime executes, so it must "
                         "belong to root and be writable by root alone",
                         (unsigned)st.st_uid, (unsigned)(st.st_mode & 07777));
                return -1;
        }
        return 0;
}

/* The record-dir, where pods name files that we write as root, apart from
 * every directory whose files we trust (plan/record_place.h): a profile
 * directory (the configured ones and the system's, which an engine's hooks.d
 * may resolve from all the same), the cache, the record root, the state root. Checked at create and run; 0, or -1 after
 * saying why. */
static int check_record_dir(const char *path, const struct rt_settings *s)
{
        if (!s->record_dir)
                return 0;
        char cache_buf[PATH_MAX];
        struct tsync_plan_paths paths = {
                .cache_dir = s->cache_dir ? s->cache_dir : frontend_default_cache_dir(cache_buf, sizeof(cache_buf)),
                .profile_dirs = s->n_profile_dirs ? s->profile_dirs : frontend_default_profile_dirs,
                .n_profile_dirs = s->n_profile_dirs ? s->n_profile_dirs : frontend_n_default_profile_dirs,
                .record_root = TSYNC_RECORD_ROOT,
        };
        struct tsync_record_place places[TSYNC_RECORD_PLACES_MAX];
        size_t n = tsync_record_places(&paths, places);
        struct tsync_err err = { 0 };
        char what[PATH_MAX + 32];
        (void)snprintf(what, sizeof(what), "record-dir '%s'", s->record_dir);
        if (tsync_record_place_check(s->record_dir, what, places, n, true, &err) == 0)
                return 0;
        if (s->record_dir_line)
                frontend_errorf(path, "line %u: %s", s->record_dir_line, err.msg);
        else
                frontend_errorf("--record-dir", "%s", err.msg);
        return -1;
}

int rt_read_conf(const char *path, bool missing_ok, bool strict, struct rt_settings *s)
{
        int r = read_text(path, strict, s);
        if (r == 1 && missing_ok)
                return strict ? check_record_dir(path, s) : 0;
        if (r == 1) {
                complain(strict, path, "%s", tsync_errtext(ENOENT));
                return -1;
        }
        bool dirs_given = s->n_profile_dirs > 0;
        char *save = NULL;
        unsigned n = 0;
        for (char *line = r == 0 ? s->conf_text : NULL; line; line = save) {
                char *nl = strchr(line, '\n');
                save = nl ? nl + 1 : NULL;
                if (nl)
                        *nl = '\0';
                n++;
                char *key, *value;
                int kv = tsync_conf_line(line, &key, &value);
                if (kv == 0)
                        continue;
                if (kv < 0) {
                        complain(strict, path, "line %u: expected 'key = value'", n);
                        r = -1;
                        continue;
                }
                int e = conf_set(s, dirs_given, key, value);
                if (e == 0 && s->record_dir == value)
                        s->record_dir_line = n;
                if (e == -ENOENT)
                        complain(strict, path,
                                 "line %u: '%s' is not a setting (runtime, layers, mode, profile-dir, cache-dir, "
                                 "no-cache, record-dir)",
                                 n, key);
                else if (e < 0)
                        complain(strict, path, "line %u: %s: %s", n, key,
                                 e == -EINVAL ? "expected true or false" : tsync_errtext(-e));
                if (e < 0)
                        r = -1;
                /* Refused at the first bad line; otherwise the lines that can be read are still read. */
                if (r < 0 && strict)
                        return -1;
        }
        if (r == 0 && strict)
                r = check_record_dir(path, s);
        return r;
}

void rt_settings_clear(struct rt_settings *s)
{
        free(s->conf_text);
        s->conf_text = NULL;
        tsync_node_policy_clear(&s->node);
}

int rt_read_node_conf(struct rt_settings *s)
{
        struct tsync_err err = { 0 };
        const char *path = s->node_conf ? s->node_conf : TSYNC_NODE_CONF;
        if (tsync_node_policy_read(path, &s->node, &err) < 0) {
                frontend_errorf("node policy", "%s", err.msg);
                return -1;
        }
        return 0;
}
