/* Finding a bench in the registry, which the Makefile generates from the
 * RTS_BENCH_DEFINE lines of bench/ (build/bench_registry.c), and whether a
 * target can run it. */
#include <stdio.h>
#include <string.h>

#include "rtscope/bench.h"

const rts_bench *rts_bench_find(const char *id)
{
    for (const rts_bench *const *b = rts_benches; *b; b++)
        if (strcmp((*b)->id, id) == 0)
            return *b;
    return NULL;
}

const rts_bench *rts_bench_of_process(const char *command)
{
    for (const rts_bench *const *b = rts_benches; *b; b++)
        if ((*b)->process_command && strcmp((*b)->process_command, command) == 0)
            return *b;
    return NULL;
}

/* What a target without capability bit k (RTS_CAP_* = 1 << k) cannot do,
 * as the reason a bench needing it is skipped. */
static const char *const cap_lacks[] = {
    "no strict-priority scheduling",
    "threads cannot be pinned to a CPU",
    "memory cannot be locked",
    "no priority-inheritance mutexes",
    "no software interrupt",
    "no cycle counter",
    "no system information",
    "no periodic timer interrupt",
    "no files",
    "cannot start processes",
    "no periodic kernel timer to wait on",
    "no GPIO lines",
    "no per-thread scheduler statistics",
};

bool rts_bench_can_run(const rts_bench *b, const rts_ctx *ctx, unsigned caps, char *why, size_t whysize)
{
    unsigned missing = b->needs_caps & ~caps;
    if (!missing)
        return !b->can_run || b->can_run(ctx, why, whysize);
    size_t used = (size_t)snprintf(why, whysize, "this target's port:");
    const char *separator = " ";
    for (unsigned k = 0; k < 32 && used < whysize; k++) {
        if (!(missing & (1u << k)))
            continue;
        if (k < sizeof cap_lacks / sizeof cap_lacks[0])
            used += (size_t)snprintf(why + used, whysize - used, "%s%s", separator, cap_lacks[k]);
        else
            used += (size_t)snprintf(why + used, whysize - used, "%scapability 0x%x", separator, 1u << k);
        separator = "; ";
    }
    return false;
}
