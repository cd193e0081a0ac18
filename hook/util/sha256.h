#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct tsync_sha256 {
        uint32_t h[8];
        uint64_t total;
        unsigned char buf[64];
        size_t used;
        bool fast; /* the CPU's SHA instructions (tsync_sha256_accelerated), unless _init_portable */
};

void tsync_sha256_init(struct tsync_sha256 *s);
/* The same digest by the portable rounds alone, never the CPU's SHA
 * instructions: the reference the tests hold the fast path to. */
void tsync_sha256_init_portable(struct tsync_sha256 *s);
/* Whether tsync_sha256_init's hashes use the CPU's SHA instructions here. */
bool tsync_sha256_accelerated(void);
void tsync_sha256_update(struct tsync_sha256 *s, const void *data, size_t len);
void tsync_sha256_final(struct tsync_sha256 *s, unsigned char out[32]);
/* out: 64 hex digits and a NUL. */
void tsync_sha256_hex(const void *data, size_t len, char out[65]);
