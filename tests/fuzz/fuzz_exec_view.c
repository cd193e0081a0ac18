/* libFuzzer target: the exec view's fast read of a config (tsync_exec_view_scan) against the full parse, and
 * each exec-view hook on both trees. The steps and the properties they check are in fuzz_steps_exec_view.c. */
#include <stdlib.h>

#include "fuzz_steps.h"

FUZZ_DEFINE_TARGET(fuzz_exec_view)
