/* runc's command line: global options, the command word, create's and run's
 * options. runc 1.1 (urfave/cli: "-name" and "--name", "=value" or the next
 * argument, options after the container id too) and crun 1.8 (argp: "-bDIR"
 * as well) take these. A global option we do not know is refused unless it
 * carries its value after '=': it decides where the command word is. One of
 * create's we do not know is taken as one without a value, which at worst
 * names the wrong id in a message (the bundle comes from -b/--bundle alone). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "facts/runtimes.h"
#include "frontend/frontend.h"
#include "runtime.h"

/* create's and run's options that take a value. */
static const char *const create_value_opts[] = { "bundle", "b", "console-socket", "pid-file", "preserve-fds", "config",
                                                 "f",      NULL };
static const char *const help_opts[] = { "help", "h", "?", "usage", NULL };
/* exec's options that take a value (runc 1.1's, crun 1.8's). */
static const char *const exec_value_opts[] = { "console-socket",
                                               "pid-file",
                                               "process",
                                               "p",
                                               "user",
                                               "u",
                                               "additional-gids",
                                               "g",
                                               "cwd",
                                               "env",
                                               "e",
                                               "cap",
                                               "c",
                                               "apparmor",
                                               "process-label",
                                               "preserve-fds",
                                               "cgroup",
                                               NULL };
/* exec's options that shape the process from the command line: with --process
 * runc ignores them and crun may not, so the process's privileges would not
 * be the file's alone. --tty and --detach say how it is attached, not what it gets. */
static const char *const exec_shaping_opts[] = {
        "user",         "u", "additional-gids", "g", "cwd", "env", "e", "cap", "c", "apparmor", "process-label",
        "no-new-privs", NULL
};

struct opt {
        bool long_form;   /* "--name" */
        const char *name; /* not NUL-terminated: len bytes */
        size_t len;
        const char *value; /* after '=', or NULL */
};

static void split_opt(const char *a, struct opt *o)
{
        o->long_form = a[1] == '-';
        o->name = a + (o->long_form ? 2 : 1);
        const char *eq = strchr(o->name, '=');
        o->len = eq ? (size_t)(eq - o->name) : strlen(o->name);
        o->value = eq ? eq + 1 : NULL;
}

static bool is(const struct opt *o, const char *name)
{
        return strlen(name) == o->len && strncmp(o->name, name, o->len) == 0;
}

static bool in(const struct opt *o, const char *const *names)
{
        for (; *names; names++)
                if (is(o, *names))
                        return true;
        return false;
}

/* A global option of any runtime we read (facts/runtimes.h): which one
 * runs behind us, the command line does not say. */
static bool global_opt(const struct opt *o, bool takes_value)
{
        size_t n;
        const struct tsync_runtime *rt = tsync_runtimes(&n);
        for (size_t i = 0; i < n; i++)
                if (tsync_runtime_list_has(takes_value ? rt[i].global_value_opts : rt[i].global_flag_opts, o->name,
                                           o->len))
                        return true;
        return false;
}

static bool is_option(const char *a)
{
        return a[0] == '-' && a[1] != '\0' && strcmp(a, "--") != 0;
}

/* Ours: only in the long form, before the command word. */
static int our_option(const struct opt *o, const char *value, struct rt_settings *s)
{
        if (is(o, "layers"))
                s->layers = value;
        else if (is(o, "mode"))
                s->mode = value;
        else if (is(o, "runtime"))
                s->runtime = value;
        else if (is(o, "runtime-config"))
                s->conf = value;
        else if (is(o, "node-conf"))
                s->node_conf = value;
        else if (is(o, "record-dir"))
                s->record_dir = value;
        else if (is(o, "cache-dir")) {
                s->cache_dir = value;
                s->no_cache = false;
        } else if (is(o, "profile-dir")) {
                if (s->n_profile_dirs == RT_MAX_DIRS) {
                        frontend_errorf("runtime: command line", "at most %d --profile-dir", RT_MAX_DIRS);
                        return -1;
                }
                s->profile_dirs[s->n_profile_dirs++] = value;
        } else
                return 0;
        return 1;
}

/* The container's id is the first operand, or the word after "--". For
 * argv[j]: 1 when it is an option to look at, 0 when an operand (taken as the
 * id if none is yet), -1 at "--", where the scan ends. */
static int take_operand(struct rt_cmdline *cl, int j)
{
        const char *a = cl->argv[j];
        if (strcmp(a, "--") == 0) {
                if (!cl->id && j + 1 < cl->argc)
                        cl->id = cl->argv[j + 1];
                return -1;
        }
        if (!is_option(a)) {
                if (!cl->id)
                        cl->id = a;
                return 0;
        }
        return 1;
}

/* The command's next option after *j (*j then at it), taking the id from
 * the operands on the way; false at the end, at "--", or (stop_at_id) once
 * the id is known. */
static bool next_option(struct rt_cmdline *cl, int *j, bool stop_at_id, struct opt *ret)
{
        while (++*j < cl->argc && !(stop_at_id && cl->id)) {
                int k = take_operand(cl, *j);
                if (k < 0)
                        return false;
                if (k > 0) {
                        split_opt(cl->argv[*j], ret);
                        return true;
                }
        }
        return false;
}

/* The value of the option at *j when it takes one (value_opts, or argp's
 * joined short form "-xVALUE" for a letter x in joined, then o is cut to the
 * letter): after '=', joined, or the next word (*j then at it). NULL when it
 * takes none or the command line ends. */
static const char *take_value(struct rt_cmdline *cl, int *j, struct opt *o, const char *const *value_opts,
                              const char *joined)
{
        if (in(o, value_opts))
                return o->value ? o->value : *j + 1 < cl->argc ? cl->argv[++*j] : NULL;
        if (!o->long_form && !o->value && o->len > 1 && strchr(joined, o->name[0])) {
                const char *value = o->name + 1;
                o->len = 1;
                return value;
        }
        return NULL;
}

static void parse_create(struct rt_cmdline *cl)
{
        cl->rewrite = true;
        struct opt o;
        for (int j = cl->command; next_option(cl, &j, false, &o);) {
                if (in(&o, help_opts))
                        cl->rewrite = false;
                /* argp's "-bDIR" and "-fFILE" (runc reads "-bundle" as --bundle). */
                const char *value = take_value(cl, &j, &o, create_value_opts, "bf");
                /* runc reads an empty bundle as the current directory (it
                 * changes directory only to a non-empty one): so do we, or
                 * runc would run ./config.json unread by us. */
                if (value && (is(&o, "bundle") || is(&o, "b")))
                        cl->bundle = value[0] ? value : NULL;
                else if (value && (is(&o, "config") || is(&o, "f")))
                        cl->config_file = value;
        }
}

static void parse_exec(struct rt_cmdline *cl)
{
        cl->exec = true;
        struct opt o;
        /* runc (SkipArgReorder) and crun read nothing after the id as their
         * own: it is the command to run. */
        for (int j = cl->command; next_option(cl, &j, true, &o);) {
                if (in(&o, help_opts))
                        cl->exec = false;
                if (in(&o, exec_shaping_opts) && !cl->shaping)
                        cl->shaping = cl->argv[j];
                /* argp's "-pFILE". */
                const char *value = take_value(cl, &j, &o, exec_value_opts, "p");
                if (value && (is(&o, "process") || is(&o, "p"))) {
                        cl->process = value;
                        /* The word holding the file: this one, or the one
                         * take_value moved to. */
                        cl->process_arg = j;
                }
        }
}

/* delete [--force] ID: only the id matters (crun's --regex names many:
 * passed through, as a delete that is not ours). */
static void parse_delete(struct rt_cmdline *cl)
{
        cl->deleting = true;
        struct opt o;
        for (int j = cl->command; next_option(cl, &j, false, &o);)
                if (in(&o, help_opts) || is(&o, "regex") || is(&o, "r"))
                        cl->deleting = false;
}

/* state, kill, ps, events, pause, resume, update ID: only the id matters (the
 * runtime that created it answers, creator.c). Every option of update takes a
 * value; of the others, ps's --format and events' --interval. */
static void parse_inspect(struct rt_cmdline *cl)
{
        static const char *const value_opts[] = { "format", "f", "interval", NULL };
        bool update = strcmp(cl->argv[cl->command], "update") == 0;
        for (int j = cl->command + 1; j < cl->argc && !cl->id; j++) {
                int k = take_operand(cl, j);
                if (k < 0)
                        break;
                if (k == 0)
                        continue;
                struct opt o;
                split_opt(cl->argv[j], &o);
                if (in(&o, help_opts))
                        return;
                if (!o.value && (update || in(&o, value_opts)))
                        j++;
        }
}

int rt_parse_cmdline(int argc, char **argv, struct rt_settings *s, struct rt_cmdline *ret)
{
        struct rt_cmdline cl = { .command = -1, .process_arg = -1 };
        if (!(cl.argv = calloc((size_t)argc + 1, sizeof(*cl.argv)))) {
                frontend_errorf("runtime: command line", "out of memory");
                return -1;
        }
        cl.argv[cl.argc++] = argv[0];
        int i = 1;
        while (i < argc && cl.command < 0) {
                const char *a = argv[i];
                if (!is_option(a)) {
                        if (strcmp(a, "--") == 0) {
                                cl.argv[cl.argc++] = argv[i++];
                                if (i == argc)
                                        break;
                        }
                        cl.command = cl.argc;
                        break;
                }
                struct opt o;
                split_opt(a, &o);
                if (o.long_form && is(&o, "no-cache") && !o.value) {
                        s->no_cache = true;
                        s->cache_dir = NULL;
                        i++;
                        continue;
                }
                /* Ours take "=value" only: a value in the next argument could be runc's command word. */
                int r = o.long_form ? our_option(&o, o.value ? o.value : "", s) : 0;
                if (r > 0 && !o.value) {
                        frontend_errorf("runtime: command line", "--%.*s needs a value: --%.*s=VALUE", (int)o.len,
                                        o.name, (int)o.len, o.name);
                        r = -1;
                }
                if (r < 0) {
                        rt_cmdline_clear(&cl);
                        return -1;
                }
                if (r > 0) {
                        i++;
                        continue;
                }
                /* An option we do not know might take the next argument as its value, or
                 * not: the command word, and so whether to rewrite, would be a guess. */
                if (!o.value && !global_opt(&o, true) && !global_opt(&o, false)) {
                        frontend_errorf("runtime: command line",
                                        "'%s' is not a global option of runc 1.1 or crun 1.8 known to %s, which cannot "
                                        "tell whether it takes the next argument: give it as %s=VALUE",
                                        a, RT_PROGRAM, a);
                        rt_cmdline_clear(&cl);
                        return -1;
                }
                cl.argv[cl.argc++] = argv[i++];
                if (!global_opt(&o, true))
                        continue;
                const char *value = o.value;
                if (!value && i < argc)
                        value = cl.argv[cl.argc++] = argv[i++];
                if (is(&o, "log"))
                        cl.log = value;
                else if (is(&o, "log-format"))
                        cl.log_format = value;
        }
        while (i < argc)
                cl.argv[cl.argc++] = argv[i++];
        if (cl.command >= 0 && (strcmp(cl.argv[cl.command], "create") == 0 || strcmp(cl.argv[cl.command], "run") == 0))
                parse_create(&cl);
        else if (cl.command >= 0 && strcmp(cl.argv[cl.command], "exec") == 0)
                parse_exec(&cl);
        else if (cl.command >= 0 && strcmp(cl.argv[cl.command], "delete") == 0)
                parse_delete(&cl);
        else if (cl.command >= 0)
                parse_inspect(&cl);
        *ret = cl;
        return 0;
}

void rt_cmdline_clear(struct rt_cmdline *cl)
{
        free(cl->argv);
        cl->argv = NULL;
        cl->argc = 0;
}
