/* libFuzzer target: any bytes as a record file (the workload can write to it), then the profile poststop makes of it.
 * The steps and the properties they check are in fuzz_steps_record.c. */
#include <stdlib.h>

#include "fuzz_steps.h"

FUZZ_DEFINE_TARGET(fuzz_record)
