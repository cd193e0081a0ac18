/* Capabilities and NO_NEW_PRIVS: end with exactly the sets of the original
 * config, so that the kernel's execve of CMD transforms them as it would have
 * transformed runc's. The order is runc's (gocapability's Apply): bounding
 * set first, then capset of permitted/effective/inheritable, then ambient.
 *
 * Everything the kernel could refuse is checked here first, against the
 * kernel's own rules (security/commoncap.c cap_capset, PR_CAPBSET_DROP), so a
 * refusal is reported before any filter is loaded. The one exception is the
 * ambient raise, which runc also treats as a warning. */
#include <errno.h>
#include <fcntl.h>
#include <linux/securebits.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "init.h"
#include "tsync/capnames.h"

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

/* Exactly the names runc honours (tsync/capnames.h): the host left out every
 * other entry, so anything else here did not come from a config through us. */
static int parse_name(const char *name, size_t len, cap_value_t *ret)
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
                cap_value_t v;
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
        int fd = open("/proc/self/status", O_RDONLY | O_CLOEXEC);

        if (fd < 0)
                return true; /* cannot tell: keep the refusal */
        while (len < sizeof(buf) - 1 && (n = read(fd, buf + len, sizeof(buf) - 1 - len)) > 0)
                len += (size_t)n;
        (void)close(fd);
        buf[len] = '\0';
        return len == sizeof(buf) - 1 || strstr(buf, "\nNoNewPrivs:") != NULL;
}

static uint64_t flag_mask(cap_t c, cap_flag_t flag, int last_cap)
{
        uint64_t m = 0;
        for (int i = 0; i <= last_cap && i < 64; i++) {
                cap_flag_value_t v = CAP_CLEAR;
                if (cap_get_flag(c, i, flag, &v) == 0 && v == CAP_SET)
                        m |= BIT(i);
        }
        return m;
}

/* "CAP_X is not in the current permitted set" for the first bit of extra. */
static int refuse_extra(uint64_t extra, const char *what)
{
        char buf[32];
        int cap = __builtin_ctzll(extra);
        init_log("capabilities", "%s %s", init_cap_name(cap, buf, sizeof(buf)), what);
        return -1;
}

int init_caps_plan(const struct init_config *cfg, struct init_caps *ret, int *ret_exit)
{
        uint64_t cur[TSYNC_CAPSET_COUNT] = { 0 }, end[TSYNC_CAPSET_COUNT];
        struct init_caps c = { 0 };
        int nnp;

        *ret_exit = INIT_EXIT_USAGE;
        c.last_cap = (int)cap_max_bits() - 1;
        if (c.last_cap > 63)
                c.last_cap = 63;
        for (int s = 0; s < TSYNC_CAPSET_COUNT; s++) {
                if (!cfg->caps[s])
                        continue;
                if (parse_list(tsync_capset(s)->option, cfg->caps[s], c.last_cap, &c.want[s]) < 0)
                        return -1;
                c.set[s] = true;
        }

        *ret_exit = INIT_EXIT_PRIVS;
        cap_t now = cap_get_proc();
        if (!now) {
                init_log("capabilities", "cannot read this process's capabilities: %s", init_strerror(errno));
                return -1;
        }
        for (int s = 0; s < TSYNC_CAPSET_COUNT; s++)
                if (tsync_capset(s)->libcap_flag >= 0)
                        cur[s] = flag_mask(now, (cap_flag_t)tsync_capset(s)->libcap_flag, c.last_cap);
        (void)cap_free(now);
        /* gVisor has no ambient set (PR_CAP_AMBIENT is EINVAL): the runtime
         * cannot give one either, so the workload ends as it would without us. */
        bool no_ambient = prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_IS_SET, 0, 0, 0) < 0 && errno == EINVAL;
        for (int i = 0; i <= c.last_cap; i++) {
                if (cap_get_bound(i) > 0)
                        cur[TSYNC_CAPSET_BOUNDING] |= BIT(i);
                if (!no_ambient && cap_get_ambient(i) > 0)
                        cur[TSYNC_CAPSET_AMBIENT] |= BIT(i);
        }
        if (no_ambient && c.set[TSYNC_CAPSET_AMBIENT]) {
                if (c.want[TSYNC_CAPSET_AMBIENT])
                        init_warn("--ambient", "this kernel has no ambient capability set (gVisor): left empty, as "
                                               "the runtime leaves it");
                c.set[TSYNC_CAPSET_AMBIENT] = false;
        }
        for (int s = 0; s < TSYNC_CAPSET_COUNT; s++)
                end[s] = c.set[s] ? c.want[s] : cur[s];
        /* Exec once's supervisor is a thread of this non-dumpable process:
         * CAP_SYS_PTRACE in any set the workload starts with (one not given
         * here is the runtime's, kept) could reach its effective set and open
         * the supervisor's /proc/1/task/N/mem. The host refuses such a plan
         * (plan.c); these are the sets the workload really gets. */
        for (int s = 0; cfg->exec_once && s < TSYNC_CAPSET_COUNT; s++) {
                if (!(end[s] & BIT(CAP_SYS_PTRACE)))
                        continue;
                init_log("--exec-once",
                         "the workload would hold CAP_SYS_PTRACE in its %s set%s%s%s, with which it could open the "
                         "exec-once supervisor's /proc/1/task/N/mem: drop it from every set",
                         tsync_capset(s)->json, c.set[s] ? "" : " (the init's own: no ",
                         c.set[s] ? "" : tsync_capset(s)->option, c.set[s] ? "" : " is given)");
                return -1;
        }
        bool setpcap = cur[TSYNC_CAPSET_EFFECTIVE] & BIT(CAP_SETPCAP);
        bool sys_admin = cur[TSYNC_CAPSET_EFFECTIVE] & BIT(CAP_SYS_ADMIN);

        /* NO_NEW_PRIVS cannot be unset: if it is on, the config must want it. */
        nnp = prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0);
        if (nnp < 0) {
                init_log("no_new_privs", "cannot read it: %s", init_strerror(errno));
                return -1;
        }
        if (nnp && !cfg->no_new_privs) {
                if (proc_shows_nnp()) {
                        init_log("no_new_privs",
                                 "it is already set, but the config does not ask for it (noNewPrivileges is false): "
                                 "pass --no-new-privs if it should be set, or start the init without it");
                        return -1;
                }
                /* gVisor sets it on every process and shows no NoNewPrivs line: the
                 * workload has it under the runtime alone too. */
                init_warn("no_new_privs", "set although the config does not ask for it, by a kernel that sets it "
                                          "on every process (gVisor): the workload keeps it, as it would without us");
        }
        if (cfg->no_new_privs) {
                c.set_nnp = !nnp;
        } else if (cfg->nfilters > 0 && !sys_admin && !nnp) {
                if (!cfg->allow_nnp) {
                        init_log("seccomp",
                                 "loading a filter needs CAP_SYS_ADMIN (effective) or NO_NEW_PRIVS, and the init has "
                                 "neither: lend it CAP_SYS_ADMIN (it is dropped again before the workload runs), set "
                                 "noNewPrivileges, or pass --allow-nnp to set NO_NEW_PRIVS");
                        return -1;
                }
                c.set_nnp = true;
        }
        /* With NO_NEW_PRIVS no capability is needed to load: change them all
         * first, so that fewer syscalls come after the filter. */
        c.caps_after_filter = cfg->nfilters > 0 && !nnp && !c.set_nnp;

        /* Bounding: it can only shrink, which needs CAP_SETPCAP. */
        if (end[TSYNC_CAPSET_BOUNDING] & ~cur[TSYNC_CAPSET_BOUNDING])
                return refuse_extra(end[TSYNC_CAPSET_BOUNDING] & ~cur[TSYNC_CAPSET_BOUNDING],
                                    "is not in the bounding set and cannot be added to it");
        c.bounding_drop = cur[TSYNC_CAPSET_BOUNDING] & ~end[TSYNC_CAPSET_BOUNDING];
        if (c.bounding_drop && !setpcap) {
                init_log("capabilities", "dropping from the bounding set needs CAP_SETPCAP (effective), which the "
                                         "init lacks");
                return -1;
        }

        /* The permitted and effective sets before execve do not enter the
         * kernel's computation of the workload's sets (P' = (I & fI) | (fP & B)
         * | A', E' = fE ? P' : A'), only the bounding, inheritable and ambient
         * sets do. A non-root init got only its ambient set through the
         * runtime's execve, so the config's permitted set is out of reach; it
         * is cut to what the init has, and the workload still ends with exactly
         * what the runtime's execve would have given it. */
        if (end[TSYNC_CAPSET_EFFECTIVE] & ~end[TSYNC_CAPSET_PERMITTED])
                return refuse_extra(end[TSYNC_CAPSET_EFFECTIVE] & ~end[TSYNC_CAPSET_PERMITTED],
                                    "is asked for in the effective set but not in the permitted set");
        end[TSYNC_CAPSET_PERMITTED] &= cur[TSYNC_CAPSET_PERMITTED];
        end[TSYNC_CAPSET_EFFECTIVE] &= end[TSYNC_CAPSET_PERMITTED];
        uint64_t inh_extra = end[TSYNC_CAPSET_INHERITABLE] & ~cur[TSYNC_CAPSET_INHERITABLE];
        if (inh_extra & ~end[TSYNC_CAPSET_BOUNDING])
                return refuse_extra(inh_extra & ~end[TSYNC_CAPSET_BOUNDING],
                                    "cannot be added to the inheritable set: it is not in the bounding set");
        if (!setpcap && (inh_extra & ~cur[TSYNC_CAPSET_PERMITTED]))
                return refuse_extra(inh_extra & ~cur[TSYNC_CAPSET_PERMITTED],
                                    "cannot be added to the inheritable set without CAP_SETPCAP: it is not permitted");

        if (end[TSYNC_CAPSET_PERMITTED] != cur[TSYNC_CAPSET_PERMITTED] ||
            end[TSYNC_CAPSET_EFFECTIVE] != cur[TSYNC_CAPSET_EFFECTIVE] ||
            end[TSYNC_CAPSET_INHERITABLE] != cur[TSYNC_CAPSET_INHERITABLE]) {
                c.proc = cap_init();
                if (!c.proc) {
                        init_log("capabilities", "%s", init_strerror(errno));
                        return -1;
                }
                for (int s = 0; s < TSYNC_CAPSET_COUNT; s++) {
                        cap_flag_t flag = (cap_flag_t)tsync_capset(s)->libcap_flag;
                        for (cap_value_t i = 0; tsync_capset(s)->libcap_flag >= 0 && i <= c.last_cap; i++)
                                if ((end[s] & BIT(i)) && cap_set_flag(c.proc, flag, 1, &i, CAP_SET))
                                        return refuse_extra(BIT(i), "cannot be set with libcap");
                }
        }

        /* The init never changes its securebits: every thread must end with these. */
        c.securebits = prctl(PR_GET_SECUREBITS, 0, 0, 0, 0);
        /* gVisor has no securebits (EINVAL): nothing can set them there, and
         * each thread must find them missing too (-1). */
        if (c.securebits < 0 && errno != EINVAL) {
                init_log("capabilities", "cannot read the securebits: %s", init_strerror(errno));
                return -1;
        }

        /* capset drops from the ambient set what is no longer permitted and
         * inheritable; the ambient set is rebuilt when that is not the end we want. */
        uint64_t amb_after = cur[TSYNC_CAPSET_AMBIENT] & end[TSYNC_CAPSET_PERMITTED] & end[TSYNC_CAPSET_INHERITABLE];
        c.ambient = c.set[TSYNC_CAPSET_AMBIENT] && amb_after != c.want[TSYNC_CAPSET_AMBIENT];
        end[TSYNC_CAPSET_AMBIENT] = amb_after;
        if (c.ambient) {
                /* The kernel's rule for a raise (PR_CAP_AMBIENT_RAISE), decided
                 * here so that every thread raises the same and the end is known.
                 * runc warns and goes on; so do we. */
                uint64_t raisable = end[TSYNC_CAPSET_PERMITTED] & end[TSYNC_CAPSET_INHERITABLE];
                if (c.securebits > 0 && (c.securebits & SECBIT_NO_CAP_AMBIENT_RAISE))
                        raisable = 0;
                c.amb_raise = c.want[TSYNC_CAPSET_AMBIENT] & raisable;
                for (int i = 0; i <= c.last_cap; i++) {
                        char buf[32];
                        if (c.want[TSYNC_CAPSET_AMBIENT] & ~raisable & BIT(i))
                                init_warn("capabilities", "cannot raise %s in the ambient set: %s; going on without it",
                                          init_cap_name(i, buf, sizeof(buf)),
                                          (c.securebits > 0 && (c.securebits & SECBIT_NO_CAP_AMBIENT_RAISE))
                                                  ? "SECBIT_NO_CAP_AMBIENT_RAISE is set"
                                                  : "it must be permitted and inheritable");
                }
                end[TSYNC_CAPSET_AMBIENT] = c.amb_raise;
        }
        for (int s = 0; s < TSYNC_CAPSET_COUNT; s++)
                c.expect[s] = end[s];
        c.expect_nnp = nnp || c.set_nnp;
        c.nnp_shown = proc_shows_nnp();
        c.no_ambient = no_ambient;
        *ret = c;
        return 0;
}

int init_caps_bounding(const struct init_caps *caps)
{
        char buf[32];

        for (int i = 0; i <= caps->last_cap; i++) {
                if (!(caps->bounding_drop & BIT(i)))
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
        if (!caps->set_nnp)
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

        if (caps->proc && cap_set_proc(caps->proc) < 0) {
                init_log("capabilities", "capset of the permitted, effective and inheritable sets failed: %s",
                         init_strerror(errno));
                return -1;
        }
        if (!caps->ambient)
                return 0;
        if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) < 0) {
                init_log("capabilities", "cannot clear the ambient set: %s", init_strerror(errno));
                return -1;
        }
        for (int i = 0; i <= caps->last_cap; i++) {
                if (!(caps->amb_raise & BIT(i)))
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
