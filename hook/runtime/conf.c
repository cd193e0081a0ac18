/* The config file: "key = value" lines, '#' comments. It names the real
 * runtime that root will execute, so it must be root's (or ours) and
 * writable by its owner alone. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../cli/cli.h"
#include "runtime.h"

static char *trim(char *s)
{
        while (*s == ' ' || *s == '\t')
                s++;
        size_t n = strlen(s);
        while (n > 0 && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\n' || s[n - 1] == '\r'))
                s[--n] = '\0';
        return s;
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

/* The whole file into s->conf_text (values point into it). 0, or -1 after printing why. */
static int read_text(FILE *f, const char *path, struct rt_settings *s)
{
        struct stat st;
        if (fstat(fileno(f), &st) < 0 || !S_ISREG(st.st_mode)) {
                cli_errorf(path, "not a regular file");
                return -1;
        }
        if ((st.st_uid != 0 && st.st_uid != geteuid()) || (st.st_mode & 022)) {
                cli_errorf(path,
                           "owned by uid %u with mode %04o: it names the program this runtime executes, so it must "
                           "belong to root and be writable by root alone",
                           (unsigned)st.st_uid, (unsigned)(st.st_mode & 07777));
                return -1;
        }
        if (!(s->conf_text = malloc(CONF_MAX_BYTES + 1))) {
                cli_errorf(path, "out of memory");
                return -1;
        }
        size_t len = fread(s->conf_text, 1, CONF_MAX_BYTES + 1, f);
        if (ferror(f) || len > CONF_MAX_BYTES) {
                cli_errorf(path, "%s", ferror(f) ? strerror(errno) : "larger than 64 KiB");
                return -1;
        }
        s->conf_text[len] = '\0';
        return 0;
}

int rt_read_conf(const char *path, bool missing_ok, struct rt_settings *s)
{
        FILE *f = fopen(path, "re");
        if (!f && errno == ENOENT && missing_ok)
                return 0;
        if (!f) {
                cli_errorf(path, "%s", strerror(errno));
                return -1;
        }
        int r = read_text(f, path, s);
        fclose(f);
        bool dirs_given = s->n_profile_dirs > 0;
        char *save = NULL;
        unsigned n = 0;
        for (char *line = r == 0 ? s->conf_text : NULL; line; line = save) {
                char *nl = strchr(line, '\n');
                save = nl ? nl + 1 : NULL;
                if (nl)
                        *nl = '\0';
                n++;
                char *t = trim(line);
                if (*t == '\0' || *t == '#')
                        continue;
                char *eq = strchr(t, '=');
                if (!eq) {
                        cli_errorf(path, "line %u: expected 'key = value'", n);
                        return -1;
                }
                *eq = '\0';
                char *key = trim(t), *value = trim(eq + 1);
                int e = conf_set(s, dirs_given, key, value);
                if (e == -ENOENT)
                        cli_errorf(path,
                                   "line %u: '%s' is not a setting (runtime, layers, mode, profile-dir, cache-dir, "
                                   "no-cache)",
                                   n, key);
                else if (e < 0)
                        cli_errorf(path, "line %u: %s: %s", n, key,
                                   e == -EINVAL ? "expected true or false" : strerror(-e));
                if (e < 0)
                        return -1;
        }
        return r;
}

void rt_settings_clear(struct rt_settings *s)
{
        free(s->conf_text);
        s->conf_text = NULL;
}
