/* A JSON-aware mutator for the targets that read JSON (libFuzzer's
 * LLVMFuzzerCustomMutator). Byte mutations break the syntax of most inputs,
 * so few reach the profile readers; half of the time this one parses the
 * input, changes one value of the tree (a word our readers know, an
 * interesting number, a member added or removed, a subtree copied elsewhere)
 * and writes it back. The other half, and for input that is not JSON,
 * libFuzzer's own mutations run. */
#include <stdlib.h>
#include <string.h>

#include "fuzz_steps.h"
#include "util/json.h"
#include "util/json_build.h"

size_t LLVMFuzzerMutate(uint8_t *data, size_t size, size_t max_size);
size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max_size, unsigned int seed);

static const char *const words[] = {
        "SCMP_ACT_ALLOW",
        "SCMP_ACT_ERRNO",
        "SCMP_ACT_KILL",
        "SCMP_ACT_KILL_PROCESS",
        "SCMP_ACT_KILL_THREAD",
        "SCMP_ACT_TRAP",
        "SCMP_ACT_TRACE",
        "SCMP_ACT_LOG",
        "SCMP_ACT_NOTIFY",
        "SCMP_CMP_EQ",
        "SCMP_CMP_NE",
        "SCMP_CMP_LT",
        "SCMP_CMP_LE",
        "SCMP_CMP_GE",
        "SCMP_CMP_GT",
        "SCMP_CMP_MASKED_EQ",
        "SCMP_ARCH_X86_64",
        "SCMP_ARCH_X86",
        "SCMP_ARCH_X32",
        "SCMP_ARCH_AARCH64",
        "SCMP_ARCH_ARM",
        "SCMP_ARCH_S390X",
        "SCMP_ARCH_RISCV64",
        "SCMP_ARCH_MIPSEL64N32",
        "x86_64",
        "amd64",
        "x32",
        "arm64",
        "s390x",
        "SECCOMP_FILTER_FLAG_LOG",
        "SECCOMP_FILTER_FLAG_SPEC_ALLOW",
        "SECCOMP_FILTER_FLAG_TSYNC",
        "SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV",
        "CAP_SYS_ADMIN",
        "CAP_CHOWN",
        "CAP_SETPCAP",
        "CAP_SYS_PTRACE",
        "CAP_BPF",
        "CAP_NOPE",
        "5.13",
        "6.1",
        "99.99",
        "4",
        "read",
        "write",
        "mkdir",
        "clone",
        "clone3",
        "socket",
        "personality",
        "ptrace",
        "getpid",
        "exit_group",
        "_llseek",
        "socketcall",
        "no_such_syscall",
        "",
        "layer",
        "replace",
        "deny-ptrace",
        "../etc",
        "/abs/path",
        "io.oci-seccomp-tsync.plan",
        "/.oci-seccomp-tsync/init",
        "oci-seccomp-tsync",
        "--",
};

static const char *const keys[] = {
        "defaultAction",
        "defaultErrnoRet",
        "defaultErrno",
        "architectures",
        "archMap",
        "architecture",
        "subArchitectures",
        "flags",
        "listenerPath",
        "listenerMetadata",
        "syscalls",
        "names",
        "name",
        "action",
        "errnoRet",
        "args",
        "index",
        "value",
        "valueTwo",
        "op",
        "includes",
        "excludes",
        "caps",
        "arches",
        "minKernel",
        "comment",
        "ociVersion",
        "process",
        "linux",
        "seccomp",
        "annotations",
        "capabilities",
        "bounding",
        "effective",
        "permitted",
        "inheritable",
        "ambient",
        "noNewPrivileges",
        "mounts",
        "hooks",
        "createRuntime",
        "poststop",
        "id",
        "bundle",
        "status",
        "pid",
        "version",
        "mode",
        "stateDir",
        "layers",
        "layersByName",
        "io.oci-seccomp-tsync.plan",
        "io.oci-seccomp-tsync.layers",
        "io.oci-seccomp-tsync.mode",
};

static const char *const numbers[] = {
        "0",
        "1",
        "2",
        "5",
        "6",
        "7",
        "13",
        "22",
        "38",
        "4095",
        "4096",
        "65535",
        "65536",
        "2147483648",
        "4294967295",
        "4294967296",
        "9223372036854775807",
        "18446744073709551615",
        "18446744073709551616",
        "-1",
        "1.5",
        "1e2",
        "-0",
};

#define N(a) (sizeof(a) / sizeof((a)[0]))

static uint64_t rnd_state;

static uint64_t rnd(uint64_t n)
{
        /* xorshift64: deterministic for a given seed, as libFuzzer wants. */
        rnd_state ^= rnd_state << 13;
        rnd_state ^= rnd_state >> 7;
        rnd_state ^= rnd_state << 17;
        return n ? rnd_state % n : 0;
}

/* Every place that holds a value: the root and each array item and member value. */
struct slots {
        struct tsync_json **at[4096];
        size_t len;
};

static void collect(struct tsync_json **slot, struct slots *s)
{
        if (s->len == N(s->at))
                return;
        s->at[s->len++] = slot;
        struct tsync_json *v = *slot;
        if (v->type == TSYNC_JSON_ARRAY)
                for (size_t i = 0; i < v->u.array.len; i++)
                        collect(&v->u.array.items[i], s);
        else if (v->type == TSYNC_JSON_OBJECT)
                for (size_t i = 0; i < v->u.object.len; i++)
                        collect(&v->u.object.values[i], s);
}

static struct tsync_json *new_number(const char *text)
{
        /* The tree keeps a number's text; build one by parsing it. */
        struct tsync_json *v = NULL;
        struct tsync_err err;
        (void)tsync_json_parse(text, strlen(text), NULL, &v, &err);
        return v;
}

static struct tsync_json *new_value(const struct slots *s)
{
        switch (rnd(8)) {
        case 0:
        case 1:
        case 2:
                return tsync_json_new_string(words[rnd(N(words))]);
        case 3:
        case 4:
                return new_number(numbers[rnd(N(numbers))]);
        case 5:
                return rnd(2) ? tsync_json_new_bool(rnd(2)) : new_number("null");
        case 6:
                return rnd(2) ? tsync_json_new_array() : tsync_json_new_object();
        default:
                return tsync_json_copy(*s->at[rnd(s->len)]);
        }
}

static void mutate_tree(struct tsync_json **root)
{
        static struct slots s;
        s.len = 0;
        collect(root, &s);
        struct tsync_json **slot = s.at[rnd(s.len)];
        struct tsync_json *v = *slot;

        if (v->type == TSYNC_JSON_ARRAY && rnd(2)) {
                size_t n = v->u.array.len;
                if (n && rnd(2)) { /* remove an item */
                        size_t i = rnd(n);
                        tsync_json_free(v->u.array.items[i]);
                        memmove(&v->u.array.items[i], &v->u.array.items[i + 1], (n - i - 1) * sizeof(void *));
                        v->u.array.len--;
                } else {
                        struct tsync_json *item =
                                n && rnd(2) ? tsync_json_copy(v->u.array.items[rnd(n)]) : new_value(&s);
                        if (item)
                                (void)tsync_json_append(v, item);
                }
                return;
        }
        if (v->type == TSYNC_JSON_OBJECT && rnd(2)) {
                size_t n = v->u.object.len;
                if (n && rnd(2)) {
                        tsync_json_remove(v, v->u.object.keys[rnd(n)]);
                } else {
                        struct tsync_json *item = new_value(&s);
                        if (item)
                                (void)tsync_json_set(v, keys[rnd(N(keys))], item);
                }
                return;
        }
        struct tsync_json *repl = new_value(&s);
        if (!repl)
                return;
        tsync_json_free(*slot);
        *slot = repl;
}

size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max_size, unsigned int seed)
{
        rnd_state = ((uint64_t)seed << 32) ^ 0x9e3779b97f4a7c15ull ^ size;
        if (rnd(2))
                return LLVMFuzzerMutate(data, size, max_size);

        struct tsync_json *doc = NULL;
        struct tsync_err err;
        if (tsync_json_parse((const char *)data, size, NULL, &doc, &err) < 0)
                return LLVMFuzzerMutate(data, size, max_size);
        for (uint64_t i = 0, n = 1 + rnd(3); i < n; i++)
                mutate_tree(&doc);
        char *text = NULL;
        size_t len = 0;
        int r = tsync_json_write(doc, rnd(4) == 0, &text, &len, &err);
        tsync_json_free(doc);
        if (r < 0 || len > max_size) {
                free(text);
                return LLVMFuzzerMutate(data, size, max_size);
        }
        memcpy(data, text, len);
        free(text);
        return len;
}
