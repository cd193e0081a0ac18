/* libFuzzer target: a Docker/containers-common profile (x86_64, Podman's capabilities, kernel 6.1) to BPF, checked as
 * fuzz_profile_oci. The steps and the properties they check are in fuzz_steps.c. */
#include <stdlib.h>

#include "fuzz_steps.h"

FUZZ_DEFINE_TARGET(fuzz_profile_docker)
