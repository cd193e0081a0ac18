/* seccomp-tsync-init: see flow.c. main() stays this thin so that test tools
 * can run the same flow after arranging the process they want to test. */
#include "init.h"

int main(int argc, char **argv)
{
        return init_flow_run(argc, argv);
}
