/* libFuzzer target: the init's filter-file reader: decode, re-encode, validate; and any bytes as a program in a correct
 * file. The steps and the properties they check are in fuzz_steps.c. */
#include <stdlib.h>

#include "fuzz_steps.h"

FUZZ_DEFINE_TARGET(fuzz_filterfile)
