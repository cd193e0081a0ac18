/* Capabilities and NO_NEW_PRIVS: end with exactly the sets of the original
 * config, so that the kernel's execve of CMD transforms them as it would have
 * transformed runc's. The order is runc's (gocapability's Apply): bounding
 * set first, then capset of permitted/effective/inheritable, then ambient.
 *
 * Three steps, before any filter: parse the options, read what the process
 * holds (capget and prctl through shared/cap_kernel.h, /proc: read_held), and decide with the pure
 * tsync_init_caps_decide (hook/shared/init_caps.c, table-tested in
 * tests/unit/test_init_caps.c), which checks everything the kernel could
 * refuse against its own rules. Then the per-thread acts below. */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "init.h"
#include "shared/cap_kernel.h"
#include "shared/capnames.h"

#define BIT(c) (UINT64_C(1) << (c))

/* Messages after the filter cannot call cap_to_name (it allocates). */
const char *init_cap_name(int cap, char *buf, size_t size)
{
        const char *name = cap >= 0 ? tsync_capname((unsigned)cap) : NULL;
        if (name)
                return name;
        (void)snprintf(buf, size, "capability %d", cap);
        return buf;
}

/* Exactly the names runc honours (shared/capnames.h): the host left out every
 * other entry, so anything else here did not come from a config through us. */
static int parse_name(const char *name, size_t len, int *ret)
{
        int c = tsync_capname_lookup(name, len);
        if (c < 0)
                return -EINVAL;
        *ret = c;
        return 0;
}

static int parse_list(const char *opt, const char *list, int last_cap, uint64_t *ret)
{
        uint64_t caps = 0;

        if (strcmp(list, "") == 0 || strcmp(list, "none") == 0) {
                *ret = 0;
                return 0;
        }
        for (const char *p = list;;) {
                size_t len = strcspn(p, ",");
                int v;
                if (parse_name(p, len, &v) < 0) {
                        init_log(opt, "'%.*s' is not a capability", (int)len, p);
                        return -1;
                }
                /* As runc: a capability this kernel does not have is left out, with a warning. */
                if (v > last_cap || v > 63)
                        init_warn(opt, "%.*s is unknown to this kernel; ignored", (int)len, p);
                else
                        caps |= BIT(v);
                if (p[len] == '\0')
                        break;
                p += len + 1;
        }
        *ret = caps;
        return 0;
}

/* Whether /proc/self/status has a NoNewPrivs line (Linux since 4.10; gVisor has none). */
static bool proc_shows_nnp(void)
{
        char buf[16384];
        size_t len = 0;
        ssize_t n;
        int fd = openat(AT_FDCWD, "/proc/self/status", O_RDONLY | O_CLOEXEC);

        if (fd < 0)
                return true; /* cannot tell: keep the refusal */
        while (len < sizeof(buf) - 1 && (n = read(fd, buf + len, sizeof(buf) - 1 - len)) > 0)
                len += (size_t)n;
        (void)close(fd);
        buf[len] = '\0';
        return len == sizeof(buf) - 1 || strstr(buf, "\nNoNewPrivs:") != NULL;
}

/* The read: what this process holds, from capget, prctl and /proc, for the
 * decision (tsync_init_caps_decide). Prints and returns -1. */
static int read_held(int last_cap, struct tsync_init_caps_held *ret)
{
        struct tsync_init_caps_held h = { .last_cap = last_cap };

        /* gVisor has no ambient set (PR_CAP_AMBIENT is EINVAL): no_ambient. */
        int r = tsync_cap_kernel_read(last_cap, h.sets, &h.no_ambient);
        if (r < 0) {
                init_log("capabilities", "cannot read this process's capabilities: %s", init_strerror(-r));
                return -1;
        }
        int nnp = prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0);
        if (nnp < 0) {
                init_log("no_new_privs", "cannot read it: %s", init_strerror(errno));
                return -1;
        }
        h.nnp = nnp != 0;
        h.nnp_shown = proc_shows_nnp();
        /* The init never changes its securebits: every thread must end with
         * these. gVisor has none (EINVAL): nothing can set them there, and
         * each thread must find them missing too (-1). */
        h.securebits = prctl(PR_GET_SECUREBITS, 0, 0, 0, 0);
        if (h.securebits < 0 && errno != EINVAL) {
                init_log("capabilities", "cannot read the securebits: %s", init_strerror(errno));
                return -1;
        }
        *ret = h;
        return 0;
}

/* The decision's warnings, in the order it meets them (runc warns and goes on). */
static void warn_decided(const struct tsync_init_caps_warnings *w, int last_cap)
{
        char buf[32];

        if (w->no_ambient)
                init_warn("--ambient", "this kernel has no ambient capability set (gVisor): left empty, as the "
                                       "runtime leaves it");
        if (w->nnp_unasked)
                init_warn("no_new_privs", "set although the config does not ask for it, by a kernel that sets it "
                                          "on every process (gVisor): the workload keeps it, as it would without us");
        for (int i = 0; i <= last_cap; i++)
                if (w->amb_unraisable & BIT(i))
                        init_warn("capabilities", "cannot raise %s in the ambient set: %s; going on without it",
                                  init_cap_name(i, buf, sizeof(buf)),
                                  w->amb_raise_forbidden ? "SECBIT_NO_CAP_AMBIENT_RAISE is set"
                                                         : "it must be permitted and inheritable");
}

/* Parse, read, decide (shared/init_caps.h), then only what acting needs. */
int init_caps_plan(const struct init_config *cfg, struct init_caps *ret, int *ret_exit)
{
        struct tsync_init_caps_opts opts = {
                .no_new_privs = cfg->no_new_privs,
                .allow_nnp = cfg->allow_nnp,
                .exec_once = cfg->exec_once != 0,
                .filters = cfg->nfilters > 0,
        };
        struct tsync_init_caps_held held;
        struct tsync_init_caps_warnings warnings;
        struct tsync_err err = { 0 };
        struct init_caps c = { 0 };

        *ret_exit = INIT_EXIT_USAGE;
        int r = tsync_cap_kernel_last(&c.last_cap);
        if (r < 0) {
                *ret_exit = INIT_EXIT_PRIVS;
                init_log("capabilities", "cannot read this process's capabilities: %s", init_strerror(-r));
                return -1;
        }
        for (int s = 0; s < TSYNC_CAPSET_COUNT; s++) {
                if (!cfg->caps[s])
                        continue;
                if (parse_list(tsync_capset(s)->option, cfg->caps[s], c.last_cap, &opts.want[s]) < 0)
                        return -1;
                opts.given[s] = true;
        }

        *ret_exit = INIT_EXIT_PRIVS;
        if (read_held(c.last_cap, &held) < 0)
                return -1;
        r = tsync_init_caps_decide(&held, &opts, &c.plan, &warnings, &err);
        warn_decided(&warnings, c.last_cap);
        if (r < 0) {
                init_log_msg(err.msg);
                return -1;
        }
        c.securebits = held.securebits;
        c.nnp_shown = held.nnp_shown;
        c.no_ambient = held.no_ambient;
        *ret = c;
        return 0;
}

int init_caps_bounding(const struct init_caps *caps)
{
        char buf[32];

        for (int i = 0; i <= caps->last_cap; i++) {
                if (!(caps->plan.bounding_drop & BIT(i)))
                        continue;
                if (prctl(PR_CAPBSET_DROP, i, 0, 0, 0) < 0) {
                        init_log("capabilities", "cannot drop %s from the bounding set: %s",
                                 init_cap_name(i, buf, sizeof(buf)), init_strerror(errno));
                        return -1;
                }
        }
        return 0;
}

int init_caps_nnp(const struct init_caps *caps)
{
        if (!caps->plan.set_nnp)
                return 0;
        if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0) {
                init_log("no_new_privs", "cannot set it: %s", init_strerror(errno));
                return -1;
        }
        return 0;
}

int init_caps_apply(const struct init_caps *caps)
{
        char buf[32];

        /* plan.capset: expect's permitted/effective/inheritable; nothing to allocate, so
         * made here, after the filter too (caps_after_filter). */
        int r = caps->plan.capset ? tsync_cap_kernel_set(caps->plan.expect) : 0;
        if (r < 0) {
                init_log("capabilities", "capset of the permitted, effective and inheritable sets failed: %s",
                         init_strerror(-r));
                return -1;
        }
        if (!caps->plan.ambient)
                return 0;
        if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) < 0) {
                init_log("capabilities", "cannot clear the ambient set: %s", init_strerror(errno));
                return -1;
        }
        for (int i = 0; i <= caps->last_cap; i++) {
                if (!(caps->plan.amb_raise & BIT(i)))
                        continue;
                /* The plan found it raisable: a refusal now (an LSM) would leave
                 * this thread unlike the others and unlike the plan. */
                if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_RAISE, i, 0, 0) < 0) {
                        init_log("capabilities", "cannot raise %s in the ambient set: %s",
                                 init_cap_name(i, buf, sizeof(buf)), init_strerror(errno));
                        return -1;
                }
        }
        return 0;
}
