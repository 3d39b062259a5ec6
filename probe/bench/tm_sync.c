/*
 * tm.sync — Thread-Metric's synchronization processing test: one thread
 * takes a semaphore and gives it back. A period's count is the pairs made.
 */
#include "thread_metric.h"

static bool take_and_give(void *sem)
{
    return rts_sem_take(sem, 0) == RTS_OK && rts_sem_give(sem) == RTS_OK;
}

static int run(rts_ctx *ctx)
{
    rts_sem *sem = NULL;
    tm_test t = { 0 };
    if (rts_sem_create(&sem, 1, 1) != RTS_OK) {
        rts_ctx_fail(ctx, "cannot create a semaphore");
        return 1;
    }
    if (tm_init(&t, ctx, "tm.sync", "semaphore take and give pairs per period (never blocking)", sem)) {
        tm_run_loop(&t, take_and_give);
        rts_metric_check_bool(t.m, "sem_failed", t.op_failed);
        if (t.op_failed)
            rts_metric_invalidate(t.m, "a take of the only token, or its give back, failed");
    }
    rts_sem_destroy(sem);
    return t.m ? 0 : 1;
}

RTS_BENCH_DEFINE(rts_bench_tm_sync) =
    TM_BENCH("tm.sync", "Thread-Metric synchronization processing: semaphore take and give", 0);
