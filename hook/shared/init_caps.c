/* The init's capability and NO_NEW_PRIVS decision (shared/init_caps.h): end
 * with exactly the sets of the original config, so that the kernel's execve
 * of CMD transforms them as it would have transformed runc's. Shared with the
 * static init: libc only, no heap. */
#include "shared/init_caps.h"

#include <errno.h>
#include <linux/capability.h>
#include <linux/securebits.h>
#include <stdio.h>

#include "shared/capnames.h"

#define BIT(c) (UINT64_C(1) << (c))

/* "CAP_X <what>" for the first bit of extra. */
static int refuse_extra(struct tsync_err *err, uint64_t extra, const char *what)
{
        unsigned cap = (unsigned)__builtin_ctzll(extra);
        const char *name = tsync_capname(cap);

        if (name)
                return tsync_error(err, EPERM, "capabilities: %s %s", name, what);
        return tsync_error(err, EPERM, "capabilities: capability %u %s", cap, what);
}

/* NO_NEW_PRIVS cannot be unset: if it is on, the config must want it. With
 * no filter to load, nothing needs CAP_SYS_ADMIN or NO_NEW_PRIVS. */
static int decide_nnp(const struct tsync_init_caps_held *held, const struct tsync_init_caps_opts *opts,
                      struct tsync_init_caps_plan *p, struct tsync_init_caps_warnings *warnings, struct tsync_err *err)
{
        bool sys_admin = held->sets[TSYNC_CAPSET_EFFECTIVE] & BIT(CAP_SYS_ADMIN);

        if (held->nnp && !opts->no_new_privs) {
                if (held->nnp_shown)
                        return tsync_error(err, EPERM,
                                           "no_new_privs: it is already set, but the config does not ask for it "
                                           "(noNewPrivileges is false): pass --no-new-privs if it should be set, or "
                                           "start the init without it");
                /* gVisor sets it on every process and shows no NoNewPrivs line: the
                 * workload has it under the runtime alone too. */
                warnings->nnp_unasked = true;
        }
        if (opts->no_new_privs) {
                p->set_nnp = !held->nnp;
        } else if (opts->filters && !sys_admin && !held->nnp) {
                if (!opts->allow_nnp)
                        return tsync_error(err, EPERM,
                                           "seccomp: loading a filter needs CAP_SYS_ADMIN (effective) or "
                                           "NO_NEW_PRIVS, and the init has neither: lend it CAP_SYS_ADMIN (it is "
                                           "dropped again before the workload runs), set noNewPrivileges, or pass "
                                           "--allow-nnp to set NO_NEW_PRIVS");
                p->set_nnp = true;
        }
        /* With NO_NEW_PRIVS no capability is needed to load: change them all
         * first, so that fewer syscalls come after the filter. */
        p->caps_after_filter = opts->filters && !held->nnp && !p->set_nnp;
        p->expect_nnp = held->nnp || p->set_nnp;
        return 0;
}

/* The permitted, effective and inheritable sets, and the bounding set (which
 * can only shrink, with CAP_SETPCAP). */
static int decide_sets(const struct tsync_init_caps_held *held, uint64_t *end, struct tsync_init_caps_plan *p,
                       struct tsync_err *err)
{
        const uint64_t *cur = held->sets;
        bool setpcap = cur[TSYNC_CAPSET_EFFECTIVE] & BIT(CAP_SETPCAP);

        if (end[TSYNC_CAPSET_BOUNDING] & ~cur[TSYNC_CAPSET_BOUNDING])
                return refuse_extra(err, end[TSYNC_CAPSET_BOUNDING] & ~cur[TSYNC_CAPSET_BOUNDING],
                                    "is not in the bounding set and cannot be added to it");
        p->bounding_drop = cur[TSYNC_CAPSET_BOUNDING] & ~end[TSYNC_CAPSET_BOUNDING];
        if (p->bounding_drop && !setpcap)
                return tsync_error(err, EPERM,
                                   "capabilities: dropping from the bounding set needs CAP_SETPCAP (effective), which "
                                   "the init lacks");

        /* The permitted and effective sets before execve do not enter the
         * kernel's computation of the workload's sets (P' = (I & fI) | (fP & B)
         * | A', E' = fE ? P' : A'), only the bounding, inheritable and ambient
         * sets do. A non-root init got only its ambient set through the
         * runtime's execve, so the config's permitted set is out of reach; it
         * is cut to what the init has, and the workload still ends with exactly
         * what the runtime's execve would have given it. */
        if (end[TSYNC_CAPSET_EFFECTIVE] & ~end[TSYNC_CAPSET_PERMITTED])
                return refuse_extra(err, end[TSYNC_CAPSET_EFFECTIVE] & ~end[TSYNC_CAPSET_PERMITTED],
                                    "is asked for in the effective set but not in the permitted set");
        end[TSYNC_CAPSET_PERMITTED] &= cur[TSYNC_CAPSET_PERMITTED];
        end[TSYNC_CAPSET_EFFECTIVE] &= end[TSYNC_CAPSET_PERMITTED];
        uint64_t inh_extra = end[TSYNC_CAPSET_INHERITABLE] & ~cur[TSYNC_CAPSET_INHERITABLE];
        if (inh_extra & ~end[TSYNC_CAPSET_BOUNDING])
                return refuse_extra(err, inh_extra & ~end[TSYNC_CAPSET_BOUNDING],
                                    "cannot be added to the inheritable set: it is not in the bounding set");
        if (!setpcap && (inh_extra & ~cur[TSYNC_CAPSET_PERMITTED]))
                return refuse_extra(err, inh_extra & ~cur[TSYNC_CAPSET_PERMITTED],
                                    "cannot be added to the inheritable set without CAP_SETPCAP: it is not permitted");
        p->capset = end[TSYNC_CAPSET_PERMITTED] != cur[TSYNC_CAPSET_PERMITTED] ||
                    end[TSYNC_CAPSET_EFFECTIVE] != cur[TSYNC_CAPSET_EFFECTIVE] ||
                    end[TSYNC_CAPSET_INHERITABLE] != cur[TSYNC_CAPSET_INHERITABLE];
        return 0;
}

/* capset drops from the ambient set what is no longer permitted and
 * inheritable; the ambient set is rebuilt when that is not the end we want.
 * The kernel's rule for a raise (PR_CAP_AMBIENT_RAISE) is decided here so that
 * every thread raises the same and the end is known. runc warns about a
 * capability it cannot raise and goes on; so do we. */
static void decide_ambient(const struct tsync_init_caps_held *held, const struct tsync_init_caps_opts *opts, bool given,
                           uint64_t *end, struct tsync_init_caps_plan *p, struct tsync_init_caps_warnings *warnings)
{
        uint64_t want = opts->want[TSYNC_CAPSET_AMBIENT];
        uint64_t after = held->sets[TSYNC_CAPSET_AMBIENT] & end[TSYNC_CAPSET_PERMITTED] & end[TSYNC_CAPSET_INHERITABLE];

        p->ambient = given && after != want;
        end[TSYNC_CAPSET_AMBIENT] = after;
        if (!p->ambient)
                return;
        bool forbidden = held->securebits > 0 && (held->securebits & SECBIT_NO_CAP_AMBIENT_RAISE);
        uint64_t raisable = forbidden ? 0 : end[TSYNC_CAPSET_PERMITTED] & end[TSYNC_CAPSET_INHERITABLE];
        p->amb_raise = want & raisable;
        warnings->amb_unraisable = want & ~raisable;
        warnings->amb_raise_forbidden = forbidden && warnings->amb_unraisable;
        end[TSYNC_CAPSET_AMBIENT] = p->amb_raise;
}

int tsync_init_caps_decide(const struct tsync_init_caps_held *held, const struct tsync_init_caps_opts *opts,
                           struct tsync_init_caps_plan *ret, struct tsync_init_caps_warnings *warnings,
                           struct tsync_err *err)
{
        struct tsync_init_caps_plan p = { 0 };
        uint64_t end[TSYNC_CAPSET_COUNT];
        bool given[TSYNC_CAPSET_COUNT];
        int r;

        *warnings = (struct tsync_init_caps_warnings){ 0 };
        for (int s = 0; s < TSYNC_CAPSET_COUNT; s++)
                given[s] = opts->given[s];
        /* gVisor has no ambient set: the runtime cannot give one either, so
         * the workload ends as it would without us. */
        if (held->no_ambient && given[TSYNC_CAPSET_AMBIENT]) {
                warnings->no_ambient = opts->want[TSYNC_CAPSET_AMBIENT] != 0;
                given[TSYNC_CAPSET_AMBIENT] = false;
        }
        for (int s = 0; s < TSYNC_CAPSET_COUNT; s++)
                end[s] = given[s] ? opts->want[s] : held->sets[s];
        /* Exec once's supervisor is a thread of this non-dumpable process:
         * CAP_SYS_PTRACE in any set the workload starts with (one not given
         * here is the runtime's, kept) could reach its effective set and open
         * the supervisor's /proc/1/task/N/mem. The host refuses such a plan
         * (plan.c); these are the sets the workload really gets. */
        for (int s = 0; opts->exec_once && s < TSYNC_CAPSET_COUNT; s++) {
                if (!(end[s] & BIT(CAP_SYS_PTRACE)))
                        continue;
                return tsync_error(err, EPERM,
                                   "--exec-once: the workload would hold CAP_SYS_PTRACE in its %s set%s%s%s, with "
                                   "which it could open the exec-once supervisor's /proc/1/task/N/mem: drop it from "
                                   "every set",
                                   tsync_capset(s)->json, given[s] ? "" : " (the init's own: no ",
                                   given[s] ? "" : tsync_capset(s)->option, given[s] ? "" : " is given)");
        }
        r = decide_nnp(held, opts, &p, warnings, err);
        if (r < 0)
                return r;
        r = decide_sets(held, end, &p, err);
        if (r < 0)
                return r;
        decide_ambient(held, opts, given[TSYNC_CAPSET_AMBIENT], end, &p, warnings);
        for (int s = 0; s < TSYNC_CAPSET_COUNT; s++)
                p.expect[s] = end[s];
        *ret = p;
        return 0;
}
