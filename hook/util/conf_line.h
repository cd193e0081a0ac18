/* The lines of our "key = value" files (runtime.conf, node.conf): '#'
 * comments, blank lines, blanks around keys and values. */
#pragma once

/* s without its leading and trailing blanks (and a trailing CR or LF), in place. */
char *tsync_trim(char *s);

/* One line, split in place: 1 with *key and *value trimmed, 0 for a blank
 * line or a comment, -EINVAL for a line without '='. */
int tsync_conf_line(char *line, char **key, char **value);
