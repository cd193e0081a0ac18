/* The pieces of createRuntime's agent delivery that need no container: the
 * config's mounts against the plan (the tmpfs there, the agent's socket
 * nowhere), the root directory, the mountinfo check, and the relay's
 * directory checked (a tmpfs at /dev/shm, a directory on disk). */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "agent/agent_deliver.h"
#include "tap.h"
#include "unit.h"
#include "util/json.h"

static int check_config(const char *mounts, const char *listener, struct tsync_err *err)
{
        char buf[1024];
        (void)snprintf(buf, sizeof(buf), "{\"mounts\": [%s]}", mounts);
        struct tsync_json *c = unit_parse(buf);
        struct tsync_plan plan = { .listener_path = (char *)listener };
        int r = c ? tsync_agent_check_config(c, &plan, err) : -EINVAL;
        tsync_json_free(c);
        return r;
}

static void test_agent_deliver_check_config(void)
{
        struct tsync_err err = { 0 };
        int r = check_config("{\"destination\": \"/.oci-seccomp-tsync/agent\", \"type\": \"tmpfs\"}", "/run/a.sock",
                             &err);
        tap_ok(r == 0, "test_agent_deliver_accepts_the_tmpfs_the_rewrite_writes (%s)", err.msg);
        err.msg[0] = '\0';
        r = check_config("{\"destination\": \"/.oci-seccomp-tsync/agent.sock\", \"type\": \"bind\", \"source\": "
                         "\"/run/a.sock\"}, {\"destination\": \"/.oci-seccomp-tsync/agent\", \"type\": \"tmpfs\"}",
                         "/run/a.sock", &err);
        tap_ok(r == -EPERM && strstr(err.msg, "mounts[0]: the notify agent's socket '/run/a.sock' is mounted into the "
                                              "container at '/.oci-seccomp-tsync/agent.sock'"),
               "test_agent_deliver_refuses_the_agents_socket_in_the_container (%s)", err.msg);
        err.msg[0] = '\0';
        r = check_config("{\"destination\": \"/run/x.sock\", \"type\": \"bind\", \"source\": \"/run/a.sock\"}, "
                         "{\"destination\": \"/.oci-seccomp-tsync/agent\", \"type\": \"tmpfs\"}",
                         "/run/a.sock", &err);
        tap_ok(r == -EPERM && strstr(err.msg, "is mounted into the container at '/run/x.sock'"),
               "test_agent_deliver_refuses_the_agents_socket_anywhere_in_the_container (%s)", err.msg);
        err.msg[0] = '\0';
        r = check_config("", "/run/a.sock", &err);
        tap_ok(r == -EINVAL && strstr(err.msg, "no /.oci-seccomp-tsync/agent mount for the relay's socket"),
               "test_agent_deliver_refuses_a_config_without_the_tmpfs (%s)", err.msg);
        err.msg[0] = '\0';
        r = check_config("{\"destination\": \"/.oci-seccomp-tsync/agent\", \"type\": \"bind\"}", "/run/a.sock", &err);
        tap_ok(r == -EINVAL && strstr(err.msg, "is a 'bind' mount, not the relay's tmpfs"),
               "test_agent_deliver_refuses_a_bind_mount_for_the_relay (%s)", err.msg);
        err.msg[0] = '\0';
        r = check_config("", NULL, &err);
        tap_ok(r == -EINVAL && strstr(err.msg, "the plan has neither a notify agent nor a recording"),
               "test_agent_deliver_refuses_a_plan_without_an_agent (%s)", err.msg);
}

static void test_agent_deliver_rootfs(void)
{
        struct tsync_err err = { 0 };
        struct tsync_json *rel = unit_parse("{\"root\": {\"path\": \"no-such-rootfs\"}}");
        struct tsync_json *abs = unit_parse("{\"root\": {\"path\": \"/no/such/rootfs\"}}");
        struct tsync_json *none = unit_parse("{\"root\": {}}");
        char *a = NULL, *b = NULL, *c = NULL;
        int r1 = rel ? tsync_agent_rootfs(rel, "/bundle", &a, &err) : -EINVAL;
        int r2 = abs ? tsync_agent_rootfs(abs, "/bundle", &b, &err) : -EINVAL;
        tap_ok(r1 == 0 && r2 == 0 && strcmp(a, "/bundle/no-such-rootfs") == 0 && strcmp(b, "/no/such/rootfs") == 0,
               "test_agent_deliver_finds_the_root_directory_relative_to_the_bundle (%s)", err.msg);
        int r3 = none ? tsync_agent_rootfs(none, "/bundle", &c, &err) : -EINVAL;
        tap_ok(r3 == -EINVAL && strstr(err.msg, "root.path"),
               "test_agent_deliver_refuses_a_config_without_root_path (%s)", err.msg);
        free(a);
        free(b);
        free(c);
        tsync_json_free(rel);
        tsync_json_free(abs);
        tsync_json_free(none);
}

static const char mountinfo[] =
        "22 1 8:1 / / rw,relatime shared:1 - ext4 /dev/sda1 rw\n"
        "40 22 0:50 / /b/rootfs/.oci-seccomp-tsync/agent rw,nosuid,nodev,noexec shared:9 - tmpfs tmpfs rw,size=256k\n"
        "41 22 0:51 / /b\\040x/rootfs/.oci-seccomp-tsync/agent rw - tmpfs tmpfs rw\n"
        "42 22 8:1 /srv /b/rootfs/.oci-seccomp-tsync/agent rw - tmpfs tmpfs rw\n"
        "43 22 8:1 / /b/rootfs/.oci-seccomp-tsync/agent rw - ext4 /dev/sda1 rw";

static void test_agent_deliver_mountinfo(void)
{
        struct tsync_err err = { 0 };
        int r = tsync_agent_mountinfo_check(mountinfo, 40, "/b/rootfs/.oci-seccomp-tsync/agent", &err);
        tap_ok(r == 0, "test_agent_deliver_mountinfo_accepts_our_tmpfs (%s)", err.msg);
        r = tsync_agent_mountinfo_check(mountinfo, 41, "/b x/rootfs/.oci-seccomp-tsync/agent", &err);
        tap_ok(r == 0, "test_agent_deliver_mountinfo_reads_octal_escapes (%s)", err.msg);
        err.msg[0] = '\0';
        r = tsync_agent_mountinfo_check(mountinfo, 40, "/other/rootfs/.oci-seccomp-tsync/agent", &err);
        tap_ok(r == -EINVAL && strstr(err.msg, "not at '/other/rootfs/.oci-seccomp-tsync/agent'"),
               "test_agent_deliver_mountinfo_refuses_a_mount_elsewhere (%s)", err.msg);
        err.msg[0] = '\0';
        r = tsync_agent_mountinfo_check(mountinfo, 42, "/b/rootfs/.oci-seccomp-tsync/agent", &err);
        tap_ok(r == -EINVAL && strstr(err.msg, "a bind mount of '/srv'"),
               "test_agent_deliver_mountinfo_refuses_a_bind_mount_of_a_tmpfs (%s)", err.msg);
        err.msg[0] = '\0';
        r = tsync_agent_mountinfo_check(mountinfo, 43, "/b/rootfs/.oci-seccomp-tsync/agent", &err);
        tap_ok(r == -EINVAL && strstr(err.msg, "a 'ext4' mount, not a tmpfs"),
               "test_agent_deliver_mountinfo_refuses_another_file_system (%s)", err.msg);
        r = tsync_agent_mountinfo_check(mountinfo, 4, "/b/rootfs/.oci-seccomp-tsync/agent", &err);
        tap_ok(r == -ENOENT, "test_agent_deliver_mountinfo_does_not_take_a_prefix_of_the_id (%d)", r);
}

static void test_agent_deliver_check_dir(void)
{
        char shm[] = "/dev/shm/tsync-agent-XXXXXX", disk[] = "/var/tmp/tsync-agent-XXXXXX";
        struct statfs sfs;
        if (statfs("/dev/shm", &sfs) < 0 || sfs.f_type != 0x01021994 || !mkdtemp(shm)) {
                for (int i = 0; i < 2; i++)
                        tap_skip("no tmpfs at /dev/shm", "test_agent_deliver_check_dir");
        } else {
                struct tsync_err err = { 0 };
                struct stat st = { 0 };
                (void)chmod(shm, 0700);
                int dfd = open(shm, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
                int r = tsync_agent_check_dir(dfd, shm, &st, &err);
                tap_ok(r == 0 && st.st_uid == getuid() && S_ISDIR(st.st_mode),
                       "test_agent_deliver_accepts_a_tmpfs_only_its_owner_writes_to (%s)", err.msg);
                (void)chmod(shm, 01777);
                err.msg[0] = '\0';
                r = tsync_agent_check_dir(dfd, shm, &st, &err);
                tap_ok(r == -EPERM && strstr(err.msg, "mode 1777: others can write to it"),
                       "test_agent_deliver_refuses_a_directory_others_can_write_to (%s)", err.msg);
                (void)close(dfd);
                (void)rmdir(shm);
        }
        if (!mkdtemp(disk)) {
                tap_skip("mkdtemp in /var/tmp", "test_agent_deliver_refuses_a_directory_on_disk");
                return;
        }
        struct tsync_err err = { 0 };
        struct stat st;
        int dfd = open(disk, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        int r = tsync_agent_check_dir(dfd, disk, &st, &err);
        tap_ok(r == -EPERM && strstr(err.msg, "not a tmpfs"), "test_agent_deliver_refuses_a_directory_on_disk (%s)",
               err.msg);
        (void)close(dfd);
        (void)rmdir(disk);
}

int main(void)
{
        test_agent_deliver_check_config();
        test_agent_deliver_rootfs();
        test_agent_deliver_mountinfo();
        test_agent_deliver_check_dir();
        return tap_done();
}
