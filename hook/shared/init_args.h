/* The init's command line, one record per option: what the host writes into
 * process.args (rewrite.c), what seccomp-tsync-init accepts (init/options.c)
 * and what `status` reads back from a running init's /proc/PID/cmdline
 * (status_decide.c, status_programs.c) all walk this one table, with the same
 * conflict rules. A new init option is one row (init_args.c) and a member of
 * struct tsync_init_args (HACKING.md, "How to add").
 *
 * Plain data and libc only, no heap: the static init links init_args.c. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "shared/capsets.h"

struct tsync_err;

/* The most filters the init takes (--filter and --filter-data together). */
#define TSYNC_INIT_MAX_FILTERS 16

/* Every option, in the order the writer writes them (the order the host has
 * always written them: the command line stays byte-identical for a plan). */
enum tsync_init_opt {
        TSYNC_INIT_OPT_EXEC,
        TSYNC_INIT_OPT_EXEC_ONCE,
        TSYNC_INIT_OPT_FILTER,
        TSYNC_INIT_OPT_FILTER_DATA,
        /* One per capability set, in enum tsync_capset's order. */
        TSYNC_INIT_OPT_CAPSET,
        TSYNC_INIT_OPT_NO_NEW_PRIVS = TSYNC_INIT_OPT_CAPSET + TSYNC_CAPSET_COUNT,
        TSYNC_INIT_OPT_RELAY,
        TSYNC_INIT_OPT_RECORD,
        TSYNC_INIT_OPT_PGROUP,
        TSYNC_INIT_OPT_VERIFY,
        TSYNC_INIT_OPT_ALLOW_NNP,
        TSYNC_INIT_OPT_HELP,
        TSYNC_INIT_OPT_VERSION,
        TSYNC_INIT_OPT_AGENT_STATE,
        TSYNC_INIT_OPT_WARN_REPLACE,
        TSYNC_INIT_OPT_COUNT,
};

/* How an option's value is read and kept. */
enum tsync_init_arg_kind {
        TSYNC_INIT_ARG_FLAG,   /* no value: a bool member */
        TSYNC_INIT_ARG_TEXT,   /* a value: a const char * member (pointing into argv) */
        TSYNC_INIT_ARG_CHOICE, /* a value among choices: a const char * member */
        TSYNC_INIT_ARG_ERRNO,  /* a value, a decimal errno 1..4095: an int member (0: not given) */
        TSYNC_INIT_ARG_FILTER, /* a value, appended to filters[] in command-line order */
        TSYNC_INIT_ARG_ACTION, /* no value, no member: --help and --version stop the parse */
};

/* Option `with` given (and, when value is set, given that value) beside the
 * option of the row is refused: "<row> cannot be combined with <with>[ <value>]: <why>". */
struct tsync_init_conflict {
        enum tsync_init_opt with;
        const char *value;
        const char *why; /* NULL ends the row's list */
};

struct tsync_init_opt_def {
        const char *name; /* "--exec" */
        char short_name;  /* 'f', or 0 */
        enum tsync_init_arg_kind kind;
        bool repeat;         /* may be given more than once (the filters); otherwise twice is refused */
        bool retired;        /* an older init's option: read by status, refused by the init, never written */
        size_t member;       /* offsetof(struct tsync_init_args, ...) for FLAG, TEXT, CHOICE, ERRNO */
        const char *choices; /* CHOICE: the accepted values, ", "-separated, in messages as they are */
        bool nonempty;       /* TEXT: "" is refused */
        const char *plan;    /* where the host's writer takes it (rewrite.c init_args); NULL: never written */
        struct tsync_init_conflict conflicts[5]; /* ended by the first without why */
};

/* One filter of the command line: its option (FILTER or FILTER_DATA) and text. */
struct tsync_init_filter_arg {
        enum tsync_init_opt opt;
        const char *text;
};

/* The parsed command line; every pointer points into the argv it came from
 * (or, for the writer, into the caller's strings). Zero: nothing given. */
struct tsync_init_args {
        struct tsync_init_filter_arg filters[TSYNC_INIT_MAX_FILTERS];
        size_t n_filters;
        const char *caps[TSYNC_CAPSET_COUNT]; /* the list's text ("CAP_KILL,CAP_CHOWN", "none") */
        bool exec;
        int exec_once;
        bool no_new_privs;
        bool allow_nnp;
        const char *relay;
        const char *record;
        bool pgroup;
        bool warn_replace;
        const char *verify;      /* "auto", "proc", "probe"; NULL: not given (auto) */
        const char *agent_state; /* retired (before the relay): read only */
        char *const *cmd;        /* CMD [ARG...], NULL-terminated (the parser's output; unused by the writer) */
        int n_cmd;
};

/* The record of option o (o < TSYNC_INIT_OPT_COUNT). */
const struct tsync_init_opt_def *tsync_init_opt(enum tsync_init_opt o);

/* Whether option o is given in a (a FILTER option: at least one of its filters). */
bool tsync_init_args_given(const struct tsync_init_args *a, enum tsync_init_opt o);

/* The conflict rules of the table on a: -EINVAL naming the first pair given
 * together (the init's parser and the host's writer both call it). */
int tsync_init_args_check(const struct tsync_init_args *a, struct tsync_err *err);

/* Parse flags. */
enum {
        TSYNC_INIT_ARGS_RETIRED = 1 << 0, /* accept retired rows (status reading an older init) */
};
/* What tsync_init_args_parse returns besides 0 and -EINVAL: --help or --version was given. */
enum {
        TSYNC_INIT_ARGS_HELP = 1,
        TSYNC_INIT_ARGS_VERSION = 2,
};

/* Parses argv (argv[0] the program, then OPTIONS -- CMD [ARG...]) as
 * getopt_long with "+" would: long options by their name, a unique prefix of
 * it, or "--name=value"; -f VALUE, -fVALUE, -g, grouped short options; the
 * first "--" or non-option starts CMD. Checks each value, the repeats, the
 * conflicts (tsync_init_args_check), and that a non-empty CMD is given.
 * Returns 0, TSYNC_INIT_ARGS_HELP/VERSION (*ret then partial), or -EINVAL with
 * one line in err (without the "command line: " the init puts before it). */
int tsync_init_args_parse(int argc, char *const *argv, unsigned flags, struct tsync_init_args *ret,
                          struct tsync_err *err);

/* Writes a's options in table order, each argument through emit (which
 * copies it): the options only, neither argv[0] nor "--" nor CMD. Returns 0
 * or emit's first negative result; -EINVAL when a breaks a rule of the table
 * (a conflict, too many filters, a bad value), checked before anything is
 * emitted. */
int tsync_init_args_write(const struct tsync_init_args *a, int (*emit)(void *ctx, const char *arg), void *ctx,
                          struct tsync_err *err);
