/* libFuzzer target: a whole config.json: its profile (format auto), the inject/precreate rewrite and the plan it
 * leaves. The steps and the properties they check are in fuzz_steps.c. */
#include <stdlib.h>

#include "fuzz_steps.h"

FUZZ_DEFINE_TARGET(fuzz_config)
