/* plain_exec.c: the warning about processes a plain runtime exec starts,
 * decided from what was asked and Yama's ptrace scope, read from a path the
 * test gives (0, 1, 3, absent, garbage). */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "facts/plain_exec.h"
#include "tap.h"
#include "unit.h"

int main(void)
{
        char tmp[] = "/tmp/test_plain_exec.XXXXXX";
        if (unit_tmpdir(tmp) < 0)
                return tap_done();
        static const struct {
                const char *scope; /* the file's text; NULL: absent */
                size_t n_layers;
                int exec_once;
                const char *want; /* in the one warning; NULL: none */
                const char *name;
        } cases[] = {
                { "0\n", 1, 0, "scope-0 is 0, so the workload can take them over", "scope_0_with_a_layer" },
                { "0\n", 0, 1, "own linux.seccomp, without exec once, and", "scope_0_with_exec_once" },
                { "0\n", 2, 1, "without the layers or exec once", "scope_0_with_both" },
                { "1\n", 1, 1, NULL, "scope_1" },
                { "2\n", 1, 0, NULL, "scope_2" },
                { "3\n", 1, 0, NULL, "scope_3" },
                { NULL, 1, 0, "this kernel has no Yama", "yama_absent" },
                { "x\n", 1, 0, "cannot be read as a number", "scope_garbage" },
                { "", 0, 1, "cannot be read as a number", "scope_empty" },
                { "0\n", 0, 0, NULL, "nothing_asked_scope_0" },
                { NULL, 0, 0, NULL, "nothing_asked_yama_absent" },
        };
        for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
                char path[4200];
                struct tsync_warnings w = { 0 };
                (void)snprintf(path, sizeof(path), "%s/scope-%zu", tmp, i);
                if (cases[i].scope && unit_write_file(path, cases[i].scope) < 0) {
                        tap_ok(0, "test_plain_exec_%s (cannot write %s)", cases[i].name, path);
                        continue;
                }
                int r = tsync_warn_plain_exec(cases[i].n_layers, cases[i].exec_once, path, &w);
                if (cases[i].want)
                        tap_ok(r == 0 && w.len == 1 && strstr(w.msgs[0], cases[i].want) &&
                                       strstr(w.msgs[0], "set kernel.yama.ptrace_scope to 1 or more, or run the "
                                                         "container with oci-seccomp-tsync-runtime") &&
                                       strstr(w.msgs[0], "by ptrace or /proc/PID/mem") && !strchr(w.msgs[0], '\n'),
                               "test_plain_exec_warns_%s (%s)", cases[i].name, w.len ? w.msgs[0] : "no warning");
                else
                        tap_ok(r == 0 && w.len == 0, "test_plain_exec_is_quiet_%s (%s)", cases[i].name,
                               w.len ? w.msgs[0] : "");
                tsync_warnings_clear(&w);
        }
        /* A directory cannot be read: the errno is named. */
        struct tsync_warnings w = { 0 };
        int r = tsync_warn_plain_exec(1, 0, tmp, &w);
        tap_ok(r == 0 && w.len == 1 && strstr(w.msgs[0], "cannot be read: Is a directory"),
               "test_plain_exec_warns_when_the_scope_cannot_be_read (%s)", w.len ? w.msgs[0] : "no warning");
        tsync_warnings_clear(&w);
        /* The one reader of the scope, which lockdown asks too (3 refuses it). */
        static const struct {
                const char *text; /* NULL: absent */
                int r;
                long scope;
                const char *name;
        } scopes[] = {
                { "3\n", 0, 3, "3" },
                { "0", 0, 0, "0_without_newline" },
                { "3 x\n", -EBADMSG, 0, "trailing_garbage" },
                { "-1\n", -EBADMSG, 0, "negative" },
                { NULL, -ENOENT, 0, "absent" },
        };
        for (size_t i = 0; i < sizeof(scopes) / sizeof(scopes[0]); i++) {
                char path[4200];
                (void)snprintf(path, sizeof(path), "%s/yama-%zu", tmp, i);
                if (scopes[i].text && unit_write_file(path, scopes[i].text) < 0) {
                        tap_ok(0, "test_plain_exec_yama_scope_%s (cannot write %s)", scopes[i].name, path);
                        continue;
                }
                long v = -7;
                r = tsync_yama_scope(path, &v);
                tap_ok(r == scopes[i].r && (r < 0 ? v == -7 : v == scopes[i].scope),
                       "test_plain_exec_yama_scope_%s: %d %ld", scopes[i].name, r, v);
        }
        /* Past the few bytes the sysctl holds: not judged by its first bytes. */
        char big[4200];
        (void)snprintf(big, sizeof(big), "%s/scope-big", tmp);
        char text[200];
        memset(text, ' ', sizeof(text) - 1);
        text[0] = '1';
        text[sizeof(text) - 1] = '\0';
        if (unit_write_file(big, text) == 0) {
                r = tsync_warn_plain_exec(1, 0, big, &w);
                tap_ok(r == 0 && w.len == 1 && strstr(w.msgs[0], "cannot be read: File too large"),
                       "test_plain_exec_warns_when_the_scope_is_past_its_limit (%s)", w.len ? w.msgs[0] : "no warning");
                tsync_warnings_clear(&w);
        } else
                tap_ok(0, "test_plain_exec_warns_when_the_scope_is_past_its_limit (cannot write %s)", big);
        return tap_done();
}
