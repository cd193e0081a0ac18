/* The init's options, one row each (shared/init_args.h), and the one parser,
 * checker and writer that walk them. Linked into the static init as well:
 * libc and error.c only, no heap. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "shared/error.h"
#include "shared/init_args.h"

#define MEMBER(m) offsetof(struct tsync_init_args, m)
#define CAPSET_ROW(s, opt)                                                                                             \
        [TSYNC_INIT_OPT_CAPSET + (s)] = { .name = opt,                                                                 \
                                          .kind = TSYNC_INIT_ARG_TEXT,                                                 \
                                          .member = MEMBER(caps[s]),                                                   \
                                          .plan = "plan.capabilities (each set, when the config has them)" }

static const struct tsync_init_opt_def opts[TSYNC_INIT_OPT_COUNT] = {
        [TSYNC_INIT_OPT_EXEC] = { .name = "--exec", .kind = TSYNC_INIT_ARG_FLAG, .member = MEMBER(exec),
                                  .plan = "plan.init.exec" },
        [TSYNC_INIT_OPT_EXEC_ONCE] = {
                .name = "--exec-once", .kind = TSYNC_INIT_ARG_ERRNO, .member = MEMBER(exec_once),
                .plan = "plan.init.exec_once",
                .conflicts = {
                        { TSYNC_INIT_OPT_EXEC, NULL, "the init must stay to answer the workload's execs" },
                        /* The probe asks the main and signal threads only (verify_probe.c). */
                        { TSYNC_INIT_OPT_VERIFY, "probe",
                          "the supervisor thread can be proven only by /proc's Seccomp_filters counts, not by the "
                          "probe" },
                        /* The relay's only use is a filter with a listener of its own (an
                         * agent's, or a recording's), which the init refuses beside the
                         * exec-once filter whatever the files are (filters.c). */
                        { TSYNC_INIT_OPT_RELAY, NULL,
                          "the kernel allows one listener among a process's filters, and the relay is there for "
                          "another (a notify agent's or a recording's)" },
                },
        },
        [TSYNC_INIT_OPT_FILTER] = { .name = "--filter", .short_name = 'f', .kind = TSYNC_INIT_ARG_FILTER,
                                    .repeat = true, .plan = "the plan's filters (TSYNC_DELIVERY_FILES)" },
        [TSYNC_INIT_OPT_FILTER_DATA] = { .name = "--filter-data", .kind = TSYNC_INIT_ARG_FILTER, .repeat = true,
                                         .plan = "the plan's filters (TSYNC_DELIVERY_ARGS)" },
        CAPSET_ROW(TSYNC_CAPSET_BOUNDING, "--bounding"),
        CAPSET_ROW(TSYNC_CAPSET_EFFECTIVE, "--effective"),
        CAPSET_ROW(TSYNC_CAPSET_INHERITABLE, "--inheritable"),
        CAPSET_ROW(TSYNC_CAPSET_PERMITTED, "--permitted"),
        CAPSET_ROW(TSYNC_CAPSET_AMBIENT, "--ambient"),
        [TSYNC_INIT_OPT_NO_NEW_PRIVS] = { .name = "--no-new-privs", .kind = TSYNC_INIT_ARG_FLAG,
                                          .member = MEMBER(no_new_privs), .plan = "plan.no_new_privileges" },
        [TSYNC_INIT_OPT_RELAY] = { .name = "--relay", .kind = TSYNC_INIT_ARG_TEXT, .member = MEMBER(relay),
                                   .plan = "plan.listener_path or plan.record (TSYNC_CONTAINER_RELAY)" },
        /* By hand only: a recording's file reaches the init through the relay. */
        [TSYNC_INIT_OPT_RECORD] = {
                .name = "--record", .kind = TSYNC_INIT_ARG_TEXT, .member = MEMBER(record), .nonempty = true,
                .conflicts = {
                        { TSYNC_INIT_OPT_EXEC, NULL, "the init must stay to answer the workload's calls" },
                        { TSYNC_INIT_OPT_EXEC_ONCE, NULL, "the kernel allows one listener among a process's filters" },
                        { TSYNC_INIT_OPT_VERIFY, "probe",
                          "the recorder thread can be proven only by /proc's Seccomp_filters counts" },
                        /* The relay serves an agent's filter or hands over a recording's
                         * file: beside --record, the one is a second listener, the other a
                         * second file. */
                        { TSYNC_INIT_OPT_RELAY, NULL, "the recording's file is either named or the relay's" },
                },
        },
        [TSYNC_INIT_OPT_PGROUP] = {
                .name = "--pgroup", .short_name = 'g', .kind = TSYNC_INIT_ARG_FLAG, .member = MEMBER(pgroup),
                .conflicts = { { TSYNC_INIT_OPT_EXEC, NULL, "there is no child to group" } },
        },
        [TSYNC_INIT_OPT_VERIFY] = { .name = "--verify", .kind = TSYNC_INIT_ARG_CHOICE, .member = MEMBER(verify),
                                    .choices = "auto, proc, probe" },
        [TSYNC_INIT_OPT_ALLOW_NNP] = { .name = "--allow-nnp", .kind = TSYNC_INIT_ARG_FLAG,
                                       .member = MEMBER(allow_nnp) },
        [TSYNC_INIT_OPT_HELP] = { .name = "--help", .short_name = 'h', .kind = TSYNC_INIT_ARG_ACTION },
        [TSYNC_INIT_OPT_VERSION] = { .name = "--version", .kind = TSYNC_INIT_ARG_ACTION },
        /* Before the relay (issue 23) the init read the agent's state from a file. */
        [TSYNC_INIT_OPT_AGENT_STATE] = { .name = "--agent-state", .kind = TSYNC_INIT_ARG_TEXT, .retired = true,
                                         .member = MEMBER(agent_state) },
        /* The engine hides a hook's stderr (Podman): replace mode's warning
         * reaches the user on the container's own. */
        [TSYNC_INIT_OPT_WARN_REPLACE] = { .name = "--warn-replace", .kind = TSYNC_INIT_ARG_FLAG,
                                          .member = MEMBER(warn_replace), .plan = "plan.init.warn_replace" },
};

const struct tsync_init_opt_def *tsync_init_opt(enum tsync_init_opt o)
{
        return &opts[o];
}

static bool *flag_of(const struct tsync_init_args *a, const struct tsync_init_opt_def *d)
{
        return (bool *)((char *)(uintptr_t)a + d->member);
}

static const char **text_of(const struct tsync_init_args *a, const struct tsync_init_opt_def *d)
{
        return (const char **)((char *)(uintptr_t)a + d->member);
}

static int *int_of(const struct tsync_init_args *a, const struct tsync_init_opt_def *d)
{
        return (int *)((char *)(uintptr_t)a + d->member);
}

bool tsync_init_args_given(const struct tsync_init_args *a, enum tsync_init_opt o)
{
        const struct tsync_init_opt_def *d = &opts[o];
        switch (d->kind) {
        case TSYNC_INIT_ARG_FLAG:
                return *flag_of(a, d);
        case TSYNC_INIT_ARG_TEXT:
        case TSYNC_INIT_ARG_CHOICE:
                return *text_of(a, d) != NULL;
        case TSYNC_INIT_ARG_ERRNO:
                return *int_of(a, d) != 0;
        case TSYNC_INIT_ARG_FILTER:
                for (size_t i = 0; i < a->n_filters; i++)
                        if (a->filters[i].opt == o)
                                return true;
                return false;
        case TSYNC_INIT_ARG_ACTION:
                break;
        }
        return false;
}

int tsync_init_args_check(const struct tsync_init_args *a, struct tsync_err *err)
{
        for (int o = 0; o < TSYNC_INIT_OPT_COUNT; o++) {
                const struct tsync_init_opt_def *d = &opts[o];
                if (!tsync_init_args_given(a, o))
                        continue;
                for (const struct tsync_init_conflict *c = d->conflicts; c->why; c++) {
                        if (!tsync_init_args_given(a, c->with))
                                continue;
                        if (c->value && strcmp(*text_of(a, &opts[c->with]), c->value) != 0)
                                continue;
                        return tsync_error(err, EINVAL, "%s cannot be combined with %s%s%s: %s", d->name,
                                           opts[c->with].name, c->value ? " " : "", c->value ? c->value : "", c->why);
                }
        }
        return 0;
}

/* Whether value is one of choices ("a, b, c"). */
static bool is_choice(const char *choices, const char *value)
{
        size_t n = strlen(value);
        for (const char *p = choices; *p;) {
                size_t len = strcspn(p, ",");
                if (len == n && strncmp(p, value, n) == 0)
                        return true;
                p += len;
                p += strspn(p, ", ");
        }
        return false;
}

/* One value of option d, as text, into a. */
static int store(struct tsync_init_args *a, enum tsync_init_opt o, const char *value, struct tsync_err *err)
{
        const struct tsync_init_opt_def *d = &opts[o];
        switch (d->kind) {
        case TSYNC_INIT_ARG_FLAG:
                *flag_of(a, d) = true;
                return 0;
        case TSYNC_INIT_ARG_TEXT:
                if (d->nonempty && !value[0])
                        return tsync_error(err, EINVAL, "%s needs a file name", d->name);
                *text_of(a, d) = value;
                return 0;
        case TSYNC_INIT_ARG_CHOICE:
                if (!is_choice(d->choices, value))
                        return tsync_error(err, EINVAL, "%s '%s' is not one of %s", d->name, value, d->choices);
                *text_of(a, d) = value;
                return 0;
        case TSYNC_INIT_ARG_ERRNO: {
                char *end;
                errno = 0;
                long e = strtol(value, &end, 10);
                if (errno || end == value || *end || e < 1 || e > 4095)
                        return tsync_error(err, EINVAL, "%s '%s' is not an errno number (1 to 4095)", d->name, value);
                *int_of(a, d) = (int)e;
                return 0;
        }
        case TSYNC_INIT_ARG_FILTER:
                if (a->n_filters == TSYNC_INIT_MAX_FILTERS)
                        return tsync_error(err, EINVAL, "more than %d filters", TSYNC_INIT_MAX_FILTERS);
                a->filters[a->n_filters++] = (struct tsync_init_filter_arg){ .opt = o, .text = value };
                return 0;
        case TSYNC_INIT_ARG_ACTION:
                break;
        }
        return 0;
}

/* The row of a long option as given (without "--" and "=value"): its exact
 * name, or the one name it is a prefix of. -1: none or several. */
static int find_long(const char *name, size_t len, unsigned flags)
{
        int found = -1;
        for (int o = 0; o < TSYNC_INIT_OPT_COUNT; o++) {
                const char *n = opts[o].name + 2;
                if ((opts[o].retired && !(flags & TSYNC_INIT_ARGS_RETIRED)) || strncmp(n, name, len) != 0)
                        continue;
                if (n[len] == '\0')
                        return o;
                found = found == -1 ? o : -2;
        }
        return found < 0 ? -1 : found;
}

static int find_short(char c)
{
        for (int o = 0; o < TSYNC_INIT_OPT_COUNT; o++)
                if (opts[o].short_name == c)
                        return o;
        return -1;
}

/* Records that o was given, refusing a second time of a row that does not repeat. */
static int given_once(unsigned char *seen, enum tsync_init_opt o, struct tsync_err *err)
{
        if (seen[o]++ && !opts[o].repeat)
                return tsync_error(err, EINVAL, "%s is given twice", opts[o].name);
        return 0;
}

static int action(enum tsync_init_opt o)
{
        return o == TSYNC_INIT_OPT_HELP ? TSYNC_INIT_ARGS_HELP : TSYNC_INIT_ARGS_VERSION;
}

/* Option o, long or short alike: its value (inline: after '=' or the short
 * letter; else the next argument) when it takes one, once, stored. *used:
 * the value taken, NULL for a flag. */
static int take(int o, const char *inline_value, const char *arg, int argc, char *const *argv, int *i,
                unsigned char *seen, struct tsync_init_args *ret, const char **used, struct tsync_err *err)
{
        const char *value = NULL;
        if (opts[o].kind != TSYNC_INIT_ARG_FLAG) {
                if (inline_value)
                        value = inline_value;
                else if (*i + 1 < argc)
                        value = argv[++*i];
                else
                        return tsync_error(err, EINVAL, "%s needs an argument", arg);
        }
        if (used)
                *used = value;
        int r = given_once(seen, o, err);
        return r < 0 ? r : store(ret, o, value, err);
}

int tsync_init_args_parse(int argc, char *const *argv, unsigned flags, struct tsync_init_args *ret,
                          struct tsync_err *err)
{
        unsigned char seen[TSYNC_INIT_OPT_COUNT] = { 0 };
        int i = 1;
        int r;

        *ret = (struct tsync_init_args){ 0 };
        for (; i < argc; i++) {
                const char *arg = argv[i];
                if (strcmp(arg, "--") == 0) {
                        i++;
                        break;
                }
                if (arg[0] != '-' || arg[1] == '\0')
                        break; /* CMD: its own options are not ours */
                if (arg[1] == '-') {
                        const char *eq = strchr(arg + 2, '=');
                        size_t len = eq ? (size_t)(eq - arg - 2) : strlen(arg + 2);
                        int o = find_long(arg + 2, len, flags);
                        /* A flag with "=value" is as unknown as getopt_long made it. */
                        if (o < 0 ||
                            (eq && (opts[o].kind == TSYNC_INIT_ARG_FLAG || opts[o].kind == TSYNC_INIT_ARG_ACTION)))
                                return tsync_error(err, EINVAL, "unknown option '%s' (see --help)", arg);
                        if (opts[o].kind == TSYNC_INIT_ARG_ACTION)
                                return action(o);
                        r = take(o, eq ? eq + 1 : NULL, arg, argc, argv, &i, seen, ret, NULL, err);
                        if (r < 0)
                                return r;
                        continue;
                }
                /* -g, -h, -f FILE, -fFILE, -gfFILE */
                for (const char *c = arg + 1; *c; c++) {
                        int o = find_short(*c);
                        if (o < 0)
                                return tsync_error(err, EINVAL, "unknown option '-%c' (see --help)", *c);
                        if (opts[o].kind == TSYNC_INIT_ARG_ACTION)
                                return action(o);
                        const char *value = NULL;
                        r = take(o, c[1] ? c + 1 : NULL, arg, argc, argv, &i, seen, ret, &value, err);
                        if (r < 0)
                                return r;
                        if (value)
                                break;
                }
        }
        r = tsync_init_args_check(ret, err);
        if (r < 0)
                return r;
        if (i >= argc)
                return tsync_error(err, EINVAL, "no command given: seccomp-tsync-init [OPTIONS] -- CMD [ARG...]");
        if (argv[i][0] == '\0')
                return tsync_error(err, EINVAL, "the command is an empty string");
        ret->cmd = argv + i;
        ret->n_cmd = argc - i;
        return 0;
}

/* A's values as the parser would check them; every combination the init
 * refuses on its command line alone is a conflict of the table
 * (tsync_init_args_check). The init refuses more after parsing: what depends
 * on its filter files, the kernel or what it holds, and two values left to
 * their readers, capability names (caps.c) and --filter-data's base64
 * (filters.c), which the host writes only from what it checked itself. */
static int check_values(const struct tsync_init_args *a, struct tsync_err *err)
{
        if (a->n_filters > TSYNC_INIT_MAX_FILTERS)
                return tsync_error(err, EINVAL, "more than %d filters", TSYNC_INIT_MAX_FILTERS);
        for (int o = 0; o < TSYNC_INIT_OPT_COUNT; o++) {
                const struct tsync_init_opt_def *d = &opts[o];
                if (!tsync_init_args_given(a, o))
                        continue;
                if (d->retired)
                        return tsync_error(err, EINVAL, "%s is an older init's option", d->name);
                if (d->kind == TSYNC_INIT_ARG_ERRNO && (*int_of(a, d) < 1 || *int_of(a, d) > 4095))
                        return tsync_error(err, EINVAL, "%s '%d' is not an errno number (1 to 4095)", d->name,
                                           *int_of(a, d));
                if (d->kind == TSYNC_INIT_ARG_CHOICE && !is_choice(d->choices, *text_of(a, d)))
                        return tsync_error(err, EINVAL, "%s '%s' is not one of %s", d->name, *text_of(a, d),
                                           d->choices);
                if (d->kind == TSYNC_INIT_ARG_TEXT && d->nonempty && !(*text_of(a, d))[0])
                        return tsync_error(err, EINVAL, "%s needs a file name", d->name);
        }
        return tsync_init_args_check(a, err);
}

int tsync_init_args_write(const struct tsync_init_args *a, int (*emit)(void *ctx, const char *arg), void *ctx,
                          struct tsync_err *err)
{
        int r = check_values(a, err);
        if (r < 0)
                return r;
        bool filters_done = false;
        for (int o = 0; r == 0 && o < TSYNC_INIT_OPT_COUNT; o++) {
                const struct tsync_init_opt_def *d = &opts[o];
                if (d->kind == TSYNC_INIT_ARG_FILTER) {
                        /* One list, in its own order, whichever option each filter has. */
                        for (size_t i = 0; r == 0 && !filters_done && i < a->n_filters; i++) {
                                r = emit(ctx, opts[a->filters[i].opt].name);
                                if (r == 0)
                                        r = emit(ctx, a->filters[i].text);
                        }
                        filters_done = true;
                        continue;
                }
                if (d->kind == TSYNC_INIT_ARG_ACTION || !tsync_init_args_given(a, o))
                        continue;
                r = emit(ctx, d->name);
                if (r < 0 || d->kind == TSYNC_INIT_ARG_FLAG)
                        continue;
                if (d->kind == TSYNC_INIT_ARG_ERRNO) {
                        char e[16];
                        (void)snprintf(e, sizeof(e), "%d", *int_of(a, d));
                        r = emit(ctx, e);
                } else {
                        r = emit(ctx, *text_of(a, d));
                }
        }
        return r;
}
