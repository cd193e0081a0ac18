/* libFuzzer target: the hook's OCI state reader: parse from a file descriptor with a 1 MiB limit, then id and bundle.
 * The steps and the properties they check are in fuzz_steps.c. */
#include <stdlib.h>

#include "fuzz_steps.h"

FUZZ_DEFINE_TARGET(fuzz_state)
