/* libFuzzer target: tsync_json_parse on any bytes, every accessor on the tree, write and parse again.
 * The steps and the properties they check are in fuzz_steps.c. */
#include <stdlib.h>

#include "fuzz_steps.h"

FUZZ_DEFINE_TARGET(fuzz_json)
