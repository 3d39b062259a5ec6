/* Reference for evaluation/foundation.sh: a bare clock_gettime(CLOCK_MONOTONIC)
 * loop with no rtscope code, printing the median back-to-back delta in ns. */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define PAIRS 1000001

static int cmp(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

static uint64_t now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

int main(void)
{
    uint64_t *d = malloc(PAIRS * sizeof *d);
    if (!d)
        return 1;
    for (int i = 0; i < PAIRS; i++) {
        uint64_t a = now();
        d[i] = now() - a;
    }
    qsort(d, PAIRS, sizeof *d, cmp);
    printf("%llu\n", (unsigned long long)d[PAIRS / 2]);
    free(d);
    return 0;
}
