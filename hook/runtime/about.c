/* --version and --help: ours first, then the real runtime's, which it
 * prints itself once executed. Docker takes a runtime's version from the last
 * output line naming one, so it still reads the real runtime's. */
#include <stdio.h>
#include <string.h>

#include "frontend/frontend.h"
#include "runtime.h"

static bool any(const struct rt_cmdline *cl, const char *const *names)
{
        for (int i = 1; i < cl->argc && strcmp(cl->argv[i], "--") != 0; i++)
                for (const char *const *n = names; *n; n++)
                        if (strcmp(cl->argv[i], *n) == 0)
                                return true;
        return false;
}

void rt_about(const struct rt_cmdline *cl, const char *runtime)
{
        /* runc's spellings (urfave/cli takes one dash too), then crun's. */
        static const char *const version[] = { "--version", "-version", "-v", "-V", NULL };
        static const char *const help[] = { "--help", "-help", "-h", "-?", "--usage", NULL };
        /* A command word: its own help is the real runtime's (create --help, ...). */
        if (cl->command >= 0)
                return;
        if (any(cl, version))
                printf("%s version %s\nthe real runtime: %s\n", RT_PROGRAM, TSYNC_VERSION, runtime);
        else if (cl->argc == 1 || any(cl, help))
                printf("Usage: %s [OUR OPTIONS] [RUNTIME'S GLOBAL OPTIONS] COMMAND [ARGS...]\n"
                       "runc's command line in front of the real runtime: create and run start the container under\n"
                       "seccomp-tsync-init with the layers asked for; every command then goes to the real runtime.\n"
                       "Our options (before the command word, with their value after '='; see %s(1)):\n"
                       "  --layers=NAMES          profile names, applied to every container\n"
                       "  --mode=layer|replace    layer mode (default) or replace mode\n"
                       "  --runtime=PATH          the real runtime: a path, or a name in PATH (default runc)\n"
                       "  --runtime-config=FILE   the config file (default %s)\n"
                       "  --node-conf=FILE        the node's policy (default %s)\n"
                       "  --profile-dir=DIR       where layer names are looked up (repeatable; default %s, then %s)\n"
                       "  --cache-dir=DIR         the compiled-filter cache\n"
                       "  --no-cache              compile every time\n\n"
                       "The real runtime, %s:\n\n",
                       RT_PROGRAM, RT_PROGRAM, RT_DEFAULT_CONF, TSYNC_NODE_CONF, frontend_default_profile_dirs[0],
                       frontend_default_profile_dirs[1], runtime);
        fflush(stdout);
}
