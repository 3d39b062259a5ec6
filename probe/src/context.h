/*
 * A bench's context: what rts_ctx is behind the handle rtscope/bench.h
 * gives benches. The run loop (run.c) makes one per bench it runs; the
 * watchdog stops it; everything a bench does through it is in context.c.
 */
#ifndef RTSCOPE_CONTEXT_H
#define RTSCOPE_CONTEXT_H

#include <stdatomic.h>

#include "run.h"

struct rts_ctx {
    rts_run *run;
    rts_bench_result *result;      /* the bench's own, in run->results */
    uint64_t started_ns, deadline_ns;
    uint64_t window_ns;            /* where the measuring window starts: started_ns, unless the
                                    * bench moved it (rts_ctx_await_start, rts_ctx_started) */
    _Atomic bool stop;             /* measuring threads should wind down */
    rts_sem *stopped;              /* given by rts_ctx_stop; may be NULL (see rts_ctx_wait) */
};

/* Have m note what RT throttling may stop of its samples when the kernel
 * may stop the run's real-time threads for a stretch of every period (RT
 * throttling not lifted, or the fair server of newer kernels); nothing
 * otherwise, and nothing on an RTOS (throttle.c, throttle_none.c). */
void rts_ctx_watch_throttling(rts_ctx *ctx, rts_metric *m);

#endif
