/* seccomp-tsync-init: see shim.c. main() stays this thin so that test tools
 * can run the same flow after arranging the process they want to test. */
#include "init.h"

int main(int argc, char **argv)
{
        return shim_main(argc, argv);
}
