#include <errno.h>
#include <string.h>

#include "util/conf_line.h"

char *tsync_trim(char *s)
{
        while (*s == ' ' || *s == '\t')
                s++;
        size_t n = strlen(s);
        while (n > 0 && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\n' || s[n - 1] == '\r'))
                s[--n] = '\0';
        return s;
}

int tsync_conf_line(char *line, char **key, char **value)
{
        char *t = tsync_trim(line);
        if (*t == '\0' || *t == '#')
                return 0;
        char *eq = strchr(t, '=');
        if (!eq)
                return -EINVAL;
        *eq = '\0';
        *key = tsync_trim(t);
        *value = tsync_trim(eq + 1);
        return 1;
}
