#include "util/nearest.h"

#include <ctype.h>
#include <stdint.h>
#include <string.h>

#include "shared/cleanup.h"

/* Case-insensitive edit distance, capped: only small ones matter here. */
static size_t distance(const char *a, const char *b)
{
        size_t la = strlen(a), lb = strlen(b);
        size_t row[64];

        if (la >= ARRAY_SIZE(row) || lb >= ARRAY_SIZE(row))
                return SIZE_MAX;
        for (size_t j = 0; j <= lb; j++)
                row[j] = j;
        for (size_t i = 1; i <= la; i++) {
                size_t diag = row[0];
                row[0] = i;
                for (size_t j = 1; j <= lb; j++) {
                        size_t up = row[j];
                        size_t cost = tolower((unsigned char)a[i - 1]) == tolower((unsigned char)b[j - 1]) ? 0 : 1;
                        size_t best = diag + cost;
                        if (up + 1 < best)
                                best = up + 1;
                        if (row[j - 1] + 1 < best)
                                best = row[j - 1] + 1;
                        row[j] = best;
                        diag = up;
                }
        }
        return row[lb];
}

const char *tsync_nearest_word(const char *word, const char *const *words, size_t n)
{
        const char *best = NULL;
        size_t best_d = SIZE_MAX;
        for (size_t i = 0; i < n; i++) {
                size_t d = distance(word, words[i]);
                if (d < best_d) {
                        best_d = d;
                        best = words[i];
                }
        }
        size_t len = strlen(word);
        return best_d <= (len <= 4 ? 1u : 2u) ? best : NULL;
}
