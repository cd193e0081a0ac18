/* The normalised profile: name tables, lifetime, questions about it, canonical text. */
#include "translate/profile.h"

#include <errno.h>
#include <seccomp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "profile_internal.h"
#include "shared/arches.h"
#include "shared/cleanup.h"
#include "shared/filterfile.h"
#include "shared/seccomp_flags.h"

static const struct {
        const char *name;
        enum tsync_act kind;
} action_names[] = {
        { "SCMP_ACT_KILL", TSYNC_ACT_KILL_THREAD },
        { "SCMP_ACT_KILL_THREAD", TSYNC_ACT_KILL_THREAD },
        { "SCMP_ACT_KILL_PROCESS", TSYNC_ACT_KILL_PROCESS },
        { "SCMP_ACT_TRAP", TSYNC_ACT_TRAP },
        { "SCMP_ACT_ERRNO", TSYNC_ACT_ERRNO },
        { "SCMP_ACT_TRACE", TSYNC_ACT_TRACE },
        { "SCMP_ACT_ALLOW", TSYNC_ACT_ALLOW },
        { "SCMP_ACT_LOG", TSYNC_ACT_LOG },
        { "SCMP_ACT_NOTIFY", TSYNC_ACT_NOTIFY },
};

int tsync_action_parse(const char *name, enum tsync_act *ret)
{
        for (size_t i = 0; i < ARRAY_SIZE(action_names); i++)
                if (strcmp(name, action_names[i].name) == 0) {
                        *ret = action_names[i].kind;
                        return 0;
                }
        return -EINVAL;
}

const char *tsync_action_name(enum tsync_act kind)
{
        /* The first spelling listed for a kind is the canonical one, except KILL_THREAD,
         * which we print in its explicit form. */
        if (kind == TSYNC_ACT_KILL_THREAD)
                return "SCMP_ACT_KILL_THREAD";
        for (size_t i = 0; i < ARRAY_SIZE(action_names); i++)
                if (action_names[i].kind == kind)
                        return action_names[i].name;
        return "SCMP_ACT_UNKNOWN";
}

static const char *const op_names[] = {
        [TSYNC_OP_NE] = "SCMP_CMP_NE",
        [TSYNC_OP_LT] = "SCMP_CMP_LT",
        [TSYNC_OP_LE] = "SCMP_CMP_LE",
        [TSYNC_OP_EQ] = "SCMP_CMP_EQ",
        [TSYNC_OP_GE] = "SCMP_CMP_GE",
        [TSYNC_OP_GT] = "SCMP_CMP_GT",
        [TSYNC_OP_MASKED_EQ] = "SCMP_CMP_MASKED_EQ",
};

int tsync_op_parse(const char *name, enum tsync_op *ret)
{
        for (size_t i = 0; i < ARRAY_SIZE(op_names); i++)
                if (strcmp(name, op_names[i]) == 0) {
                        *ret = (enum tsync_op)i;
                        return 0;
                }
        return -EINVAL;
}

const char *tsync_op_name(enum tsync_op op)
{
        if ((size_t)op < ARRAY_SIZE(op_names))
                return op_names[op];
        return "SCMP_CMP_UNKNOWN";
}

/* The architectures: shared/arches.h, whose rows profiles name by libseccomp's
 * short form ("x86_64") or the runtime-spec's long form ("SCMP_ARCH_X86_64"),
 * and Docker-format conditions by libseccomp-golang's ("amd64"). */
int tsync_arch_parse(const char *name, uint32_t *ret)
{
        bool long_form = strncmp(name, "SCMP_ARCH_", 10) == 0;
        size_t n;
        const struct tsync_arch_def *rows = tsync_arches(&n);
        for (size_t i = 0; i < n; i++) {
                /* Exactly as listed: the short form in lower case, the long form in upper case, no mixtures. */
                const char *listed = long_form ? rows[i].spec_name : rows[i].name;
                if (!listed || strcmp(name, listed) != 0)
                        continue;
                /* The libseccomp we run with may be older than the header we were built with. */
                uint32_t token = seccomp_arch_resolve_name(rows[i].name);
                if (token == 0)
                        return -EINVAL;
                *ret = token;
                return 0;
        }
        return -EINVAL;
}

const char *tsync_arch_name(uint32_t token)
{
        const struct tsync_arch_def *row = tsync_arch_by_token(token);
        return row && row->spec_name ? row->spec_name : "SCMP_ARCH_UNKNOWN";
}

const char *tsync_arch_go_name(uint32_t token)
{
        const struct tsync_arch_def *row = tsync_arch_by_token(token);
        return row ? row->go_name : NULL;
}

int tsync_flag_parse(const char *name, uint32_t *ret)
{
        uint32_t bit;
        if (tsync_seccomp_flag_parse(name, &bit) < 0)
                return -EINVAL;
        /* We always load with TSYNC; naming it is harmless. */
        if (bit == SECCOMP_FILTER_FLAG_TSYNC) {
                *ret = 0;
                return 0;
        }
        if (!(bit & TSYNC_SECCOMP_PROFILE_FLAGS))
                return -EINVAL;
        *ret = bit;
        return 0;
}

void tsync_profile_free(struct tsync_profile *p)
{
        if (!p)
                return;
        for (size_t i = 0; i < p->n_rules; i++) {
                struct tsync_rule *r = &p->rules[i];
                for (size_t j = 0; j < r->n_names; j++)
                        free(r->names[j]);
                free(r->names);
                free(r->args);
                free(r->origin);
        }
        free(p->rules);
        free(p->arches);
        free(p->listener_path);
        free(p->listener_metadata);
        free(p);
}

bool tsync_profile_has_notify_action(const struct tsync_profile *p)
{
        if (p->default_action.kind == TSYNC_ACT_NOTIFY)
                return true;
        for (size_t i = 0; i < p->n_rules; i++)
                if (p->rules[i].action.kind == TSYNC_ACT_NOTIFY)
                        return true;
        return false;
}

bool tsync_profile_uses_notify(const struct tsync_profile *p)
{
        return tsync_profile_has_notify_action(p) || p->listener_path;
}

int tsync_profile_check_notify(const struct tsync_profile *p, const char *what, struct tsync_err *err)
{
        bool notify = tsync_profile_has_notify_action(p);

        if (p->default_action.kind == TSYNC_ACT_NOTIFY)
                return tsync_error(err, EINVAL, "%s: SCMP_ACT_NOTIFY cannot be used as default action", what);
        for (size_t i = 0; i < p->n_rules; i++) {
                const struct tsync_rule *rule = &p->rules[i];
                if (rule->action.kind != TSYNC_ACT_NOTIFY)
                        continue;
                for (size_t j = 0; j < rule->n_names; j++)
                        if (strcmp(rule->names[j], "write") == 0)
                                return tsync_error(err, EINVAL,
                                                   "%s: %s: SCMP_ACT_NOTIFY cannot be used for the write syscall", what,
                                                   rule->origin ? rule->origin : "a rule");
        }
        if (notify && (!p->listener_path || !p->listener_path[0]))
                return tsync_error(err, EINVAL,
                                   "%s: SCMP_ACT_NOTIFY needs a listenerPath: the agent that answers the notifications",
                                   what);
        if (!notify)
                return 0;
        if (p->listener_path[0] != '/')
                return tsync_error(err, EINVAL, "%s: listenerPath '%s' is not an absolute path", what,
                                   p->listener_path);
        /* The init's trailer holds our in-container path (well under 64 bytes) and the metadata. */
        size_t meta = p->listener_metadata ? strlen(p->listener_metadata) : 0;
        if (meta > TSYNC_FILTER_MAX_TRAILER - 64)
                return tsync_error(err, EINVAL,
                                   "%s: listenerMetadata is %zu bytes, more than the %u this version carries", what,
                                   meta, TSYNC_FILTER_MAX_TRAILER - 64);
        return 0;
}

static void put_str(FILE *f, const char *s)
{
        /* Length-prefixed, so no name can imitate a separator. */
        if (!s) {
                fputs("-;", f);
                return;
        }
        /* "%zu:%s;" without printf: every start keys the runtime's profile,
         * hundreds of names, and vfprintf was most of the time spent here. */
        char digits[24];
        size_t n = strlen(s), k = sizeof(digits);
        do
                digits[--k] = (char)('0' + n % 10);
        while (n /= 10);
        fwrite(digits + k, 1, sizeof(digits) - k, f);
        fputc(':', f);
        fputs(s, f);
        fputc(';', f);
}

int tsync_profile_canonical(const struct tsync_profile *p, char **ret, size_t *ret_len)
{
        char *buf = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&buf, &len);
        if (!f)
                return -ENOMEM;

        fprintf(f, "tsync-profile-1\ndefault %d %u\narches", (int)p->default_action.kind,
                (unsigned)p->default_action.data);
        for (size_t i = 0; i < p->n_arches; i++)
                fprintf(f, " %u", p->arches[i]);
        fprintf(f, "\nflags %u\nlistener ", p->flags);
        put_str(f, p->listener_path);
        put_str(f, p->listener_metadata);
        fputc('\n', f);
        for (size_t i = 0; i < p->n_rules; i++) {
                const struct tsync_rule *r = &p->rules[i];
                fprintf(f, "rule %d %u names", (int)r->action.kind, (unsigned)r->action.data);
                for (size_t j = 0; j < r->n_names; j++) {
                        fputc(' ', f);
                        put_str(f, r->names[j]);
                }
                fputs(" args", f);
                for (size_t j = 0; j < r->n_args; j++)
                        fprintf(f, " %u,%d,%llu,%llu", r->args[j].index, (int)r->args[j].op,
                                (unsigned long long)r->args[j].value, (unsigned long long)r->args[j].value_two);
                fputc('\n', f);
        }
        if (fclose(f) != 0) {
                free(buf);
                return -ENOMEM;
        }
        *ret = buf;
        *ret_len = len;
        return 0;
}
