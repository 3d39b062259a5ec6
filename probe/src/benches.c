/* The bench registry: every bench in bench/ is listed here once. */
#include <string.h>

#include "rtscope/bench.h"

extern const rts_bench rts_bench_clock_read;
extern const rts_bench rts_bench_ctxsw_sem;
extern const rts_bench rts_bench_ctxsw_yield;
extern const rts_bench rts_bench_heap;
extern const rts_bench rts_bench_lat_irq;
extern const rts_bench rts_bench_lat_preempt;
extern const rts_bench rts_bench_lat_preempt_timer;
extern const rts_bench rts_bench_lat_wakeup;
extern const rts_bench rts_bench_msgq;
extern const rts_bench rts_bench_mutex;
extern const rts_bench rts_bench_mutex_handoff;
extern const rts_bench rts_bench_selftest_hang;
extern const rts_bench rts_bench_sem;
extern const rts_bench rts_bench_thread;
extern const rts_bench rts_bench_tm_basic;
extern const rts_bench rts_bench_tm_coop;
extern const rts_bench rts_bench_tm_irq;
extern const rts_bench rts_bench_tm_irq_preempt;
extern const rts_bench rts_bench_tm_memory;
extern const rts_bench rts_bench_tm_message;
extern const rts_bench rts_bench_tm_preempt;
extern const rts_bench rts_bench_tm_sync;

const rts_bench *const rts_benches[] = {
    &rts_bench_clock_read,
    &rts_bench_ctxsw_sem,
    &rts_bench_ctxsw_yield,
    &rts_bench_heap,
    &rts_bench_lat_irq,
    &rts_bench_lat_preempt,
    &rts_bench_lat_preempt_timer,
    &rts_bench_lat_wakeup,
    &rts_bench_msgq,
    &rts_bench_mutex,
    &rts_bench_mutex_handoff,
    &rts_bench_selftest_hang,
    &rts_bench_sem,
    &rts_bench_thread,
    &rts_bench_tm_basic,
    &rts_bench_tm_coop,
    &rts_bench_tm_irq,
    &rts_bench_tm_irq_preempt,
    &rts_bench_tm_memory,
    &rts_bench_tm_message,
    &rts_bench_tm_preempt,
    &rts_bench_tm_sync,
    NULL,
};

const rts_bench *rts_bench_find(const char *id)
{
    for (const rts_bench *const *b = rts_benches; *b; b++)
        if (strcmp((*b)->id, id) == 0)
            return *b;
    return NULL;
}
