/* Finding a bench in the registry, which the Makefile generates from the
 * RTS_BENCH_DEFINE lines of bench/ (build/bench_registry.c). */
#include <string.h>

#include "rtscope/bench.h"

const rts_bench *rts_bench_find(const char *id)
{
    for (const rts_bench *const *b = rts_benches; *b; b++)
        if (strcmp((*b)->id, id) == 0)
            return *b;
    return NULL;
}
