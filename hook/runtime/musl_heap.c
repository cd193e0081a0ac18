/* The runtime wrapper's heap in its musl build (SConscript links this file
 * into it alone, in place of musl's malloc). musl's allocator gives each
 * group of blocks back to the kernel as soon as it empties: one wrapper start
 * made 55 mmap and 44 munmap calls (each munmap a TLB flush) and took 0.6 ms
 * longer than with this heap (300 interleaved pairs). The wrapper lives a few
 * milliseconds and ends in an execve, which returns all of it at once: so
 * memory comes from the kernel in chunks and is never given back, and free
 * and realloc reuse only the last block taken (a growing buffer, a
 * temporary). A start with a warm cache takes under 1 MB; compiling Podman's
 * profile into a cold cache about 11 MB.
 *
 * The heap's place is the one global of the program besides the logger's:
 * an allocator has nowhere else to keep it. One thread alone: the build
 * refuses a wrapper that links pthread_create. */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#define CHUNK ((size_t)1 << 20)
#define ALIGN ((size_t)16)

/* Before each block: its size as asked. 16 bytes, so blocks stay aligned. */
struct block {
        size_t size;
        size_t unused;
};

static struct {
        char *next, *end;   /* the free part of the current chunk */
        struct block *last; /* the block taken last from it, or NULL */
} heap;

/* n rounded up to ALIGN, with the header: 0 when that overflows. */
static size_t footprint(size_t n)
{
        if (n > SIZE_MAX - ALIGN - sizeof(struct block))
                return 0;
        return sizeof(struct block) + ((n + ALIGN - 1) & ~(ALIGN - 1));
}

static void *take(size_t n)
{
        size_t need = footprint(n);
        if (need == 0) {
                errno = ENOMEM;
                return NULL;
        }
        if ((size_t)(heap.end - heap.next) < need) {
                /* A block larger than half a chunk gets a mapping of its own. */
                size_t size = need > CHUNK / 2 ? need : CHUNK;
                char *p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
                if (p == MAP_FAILED) {
                        errno = ENOMEM;
                        return NULL;
                }
                if (size != CHUNK) {
                        struct block *b = (struct block *)p;
                        b->size = n;
                        return b + 1;
                }
                heap.next = p;
                heap.end = p + size;
                heap.last = NULL;
        }
        struct block *b = (struct block *)heap.next;
        b->size = n;
        heap.next += need;
        heap.last = b;
        return b + 1;
}

void *malloc(size_t n)
{
        return take(n);
}

void *calloc(size_t count, size_t n)
{
        if (n && count > SIZE_MAX / n) {
                errno = ENOMEM;
                return NULL;
        }
        void *p = take(count * n);
        /* The last block freed may be taken again: not always fresh zeros. */
        if (p)
                memset(p, 0, count * n);
        return p;
}

void free(void *p)
{
        if (p && (struct block *)p - 1 == heap.last) {
                heap.next = (char *)heap.last;
                heap.last = NULL;
        }
}

void *realloc(void *p, size_t n)
{
        if (!p)
                return take(n);
        struct block *b = (struct block *)p - 1;
        if (n <= b->size)
                return p;
        if (b == heap.last) {
                size_t need = footprint(n);
                if (need && (size_t)(heap.end - (char *)b) >= need) {
                        heap.next = (char *)b + need;
                        b->size = n;
                        return p;
                }
        }
        void *q = take(n);
        if (q)
                memcpy(q, p, b->size);
        return q;
}
