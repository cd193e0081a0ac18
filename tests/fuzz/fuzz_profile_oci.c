/* libFuzzer target: an OCI linux.seccomp object to BPF: validated, simulated, explained, loaded in the kernel.
 * The steps and the properties they check are in fuzz_steps.c. */
#include <stdlib.h>

#include "fuzz_steps.h"

FUZZ_DEFINE_TARGET(fuzz_profile_oci)
