/* oci-seccomp-tsync-runtime: runc's command line in front of the real runtime.
 * create and run get the bundle's config.json rewritten (the same code as
 * inject and precreate); every command then goes to the real runtime by execve. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "node/node_conf.h"

#define RT_PROGRAM      "oci-seccomp-tsync-runtime"
#define RT_DEFAULT_CONF "/etc/oci-seccomp-tsync/runtime.conf"
#define RT_MAX_DIRS     8

/* Our own settings: options before the command word (where Docker puts a
 * registered runtime's runtimeArgs) over the config file over the defaults. */
struct rt_settings {
        const char *runtime; /* the real runtime: a path, or a name looked up in PATH */
        const char *layers;  /* profile names, as in the layers annotation */
        const char *mode;    /* "layer" or "replace", or NULL: the annotation's, else layer */
        const char *profile_dirs[RT_MAX_DIRS];
        size_t n_profile_dirs;
        const char *cache_dir;
        bool no_cache;
        /* Where the record annotation may read and write profiles (a file
         * directly in it), or NULL: recordings refused. A pod's author is not
         * the node's root, and the profile is written as root. */
        const char *record_dir;
        unsigned record_dir_line; /* record-dir's line in the config file (0: the command line's) */
        const char *conf;         /* the config file named by --runtime-config, or NULL */
        char *conf_text;          /* owned: the config file's text, which its values point into */
        const char *node_conf;    /* --node-conf, or NULL: TSYNC_NODE_CONF */
        /* The node's policy (node/node_conf.h), read for create and run only:
         * its layers come before this runtime's own. */
        struct tsync_node_policy node;
};

/* Frees what rt_read_conf and rt_read_node_conf read. */
void rt_settings_clear(struct rt_settings *s);

/* The node's policy into s->node (--node-conf, else TSYNC_NODE_CONF; none
 * when that file does not exist): 0, or -1 after saying why in one line. */
int rt_read_node_conf(struct rt_settings *s);

/* runc's (and crun's) command line, as far as we need to know it. */
struct rt_cmdline {
        char **argv; /* what the real runtime gets (argv[0] set later), ours removed, NULL-terminated */
        int argc;
        int command;             /* index of the command word in argv, or -1 */
        bool rewrite;            /* create or run, and not asking for help */
        const char *bundle;      /* --bundle/-b, or NULL: the current directory */
        const char *config_file; /* crun's --config/-f, or NULL */
        const char *id;          /* the container id (first operand), or NULL */
        const char *log;         /* --log */
        const char *log_format;  /* --log-format */
        /* exec (not asking for help): the process may have to run through our init. */
        bool exec;
        int process_arg;     /* index in argv of the argument naming --process's file, or -1 */
        const char *process; /* --process/-p FILE, or NULL */
        const char *shaping; /* an option that shapes the process from the command line (--cap, ...), or NULL */
        /* delete (not asking for help): a recording becomes its profile. */
        bool deleting;
};

/* Splits argv into our settings (set in s) and the real runtime's command
 * line (ret, its argv allocated: rt_cmdline_clear). 0, or -1 after printing
 * why (nothing allocated). */
int rt_parse_cmdline(int argc, char **argv, struct rt_settings *s, struct rt_cmdline *ret);
void rt_cmdline_clear(struct rt_cmdline *cl);

/* Reads the config file (path; missing_ok for the default one) into s, for
 * settings the command line did not give (rt_settings_clear frees them).
 * 0, or -1: strict (create, run), after printing why at the first problem;
 * otherwise after every line that could be read was taken, each problem said
 * in the system log alone (the command goes on with what was read). */
int rt_read_conf(const char *path, bool missing_ok, bool strict, struct rt_settings *s);

/* create/run: rewrites the bundle's config.json when the runtime's settings
 * or the config's annotations ask for anything of ours; otherwise leaves it
 * untouched. 0, or -1 after printing why (the container must not start). */
int rt_rewrite_bundle(const struct rt_settings *s, const struct rt_cmdline *cl);

/* exec of a container whose config carries our plan: the process file
 * (--process) is rewritten so that the process runs through our init with
 * the container's filters, and argv names the rewritten copy instead
 * (hook/runtime/exec.c). runtime: the real runtime, asked for the bundle.
 * 0 (nothing to do, or done), or -1 after printing why. */
int rt_rewrite_exec(struct rt_cmdline *cl, const char *runtime);

struct tsync_json;
struct tsync_err;
/* The bundle `runtime [global options] state ID` names (exec.c). */
int rt_state_bundle(const char *runtime, const struct rt_cmdline *cl, char **ret, struct tsync_err *err);
/* BUNDLE/config.json, read under the bundle's shared lock, believed only when
 * it and the bundle are ours and writable by no one else (exec.c). */
int rt_read_config(const char *bundle, struct tsync_json **ret, struct tsync_err *err);

/* delete of a container whose plan records (hook/runtime/delete.c): the real
 * runtime's delete runs as our child, and once it succeeded the recording
 * becomes its profile, as poststop does elsewhere. 0: nothing of ours, run
 * the runtime as usual; 1: done, *ret_status is the exit status (after our
 * one line, also in --log, when the recording failed). */
int rt_delete(struct rt_cmdline *cl, const char *runtime, int *ret_status);

/* While our work runs, what we print on stderr is also kept, so that an engine
 * that reads the runtime's --log (containerd's shim: the last "error" line is
 * what `docker run` and `ctr run` show) gets our message too. */
void rt_log_begin(const struct rt_cmdline *cl);
void rt_log_end(const struct rt_cmdline *cl, bool failed);

/* --version, --help (or nothing at all) before any command word: prints ours
 * on stdout, before runtime prints its own (about.c). */
void rt_about(const struct rt_cmdline *cl, const char *runtime);

/* Which runtime created a container (creator.c), kept by its --root and id.
 * rt_record_write at create/run: 1 when written, 0 when there is nothing to
 * write (no id, rootless without XDG_RUNTIME_DIR, a live container of that id
 * keeps its own), or -1 after printing why (the container must not start: its
 * teardown could not be promised). rt_record_read: 1 and
 * the recorded absolute path in buf; 0 when there is none; -1 when there is
 * one we cannot believe (not ours, not 0600, a symbolic link), said in one line. */
int rt_record_write(const struct rt_cmdline *cl, const char *runtime);
int rt_record_read(const struct rt_cmdline *cl, char *buf, size_t size);
void rt_record_remove(const struct rt_cmdline *cl);
/* One warning line about cl's container: on stderr (and the system log),
 * but for state, ps and events, whose output an engine reads as JSON with
 * stderr mixed in, in the system log alone. */
void rt_warn(const struct rt_cmdline *cl, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The real runtime as our child with our stdio: its exit status (delete.c). */
int rt_run_child(const char *runtime, const struct rt_cmdline *cl);
