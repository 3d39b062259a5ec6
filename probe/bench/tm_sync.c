/*
 * tm.sync — Thread-Metric's synchronization processing test: one thread
 * takes a semaphore and gives it back. A period's count is the pairs made.
 */
#include "thread_metric.h"

typedef struct {
    rts_sem *sem;
    bench_counter pairs;
    bool failed;
} sync_state;

static inline void sync_loop(tm_thread *th, sync_state *s, bool work, unsigned phase)
{
    const tm_test *t = th->t;
    while (tm_in_phase(t, phase)) {
        if (work && (rts_sem_take(s->sem, 0) != RTS_OK || rts_sem_give(s->sem) != RTS_OK)) {
            s->failed = true;
            break;
        }
        bench_count(&s->pairs);
    }
}

TM_ONE_THREAD(worker, sync_loop, sync_state)

static int run(rts_ctx *ctx)
{
    sync_state s = { .sem = NULL };
    tm_test t = { 0 };
    if (rts_sem_create(&s.sem, 1, 1) != RTS_OK) {
        rts_ctx_fail(ctx, "cannot create a semaphore");
        return 1;
    }
    if (tm_init(&t, ctx, "tm.sync", "semaphore take and give pairs per period (never blocking)", &s)) {
        tm_add_counter(&t, &s.pairs, TM_COUNTED | TM_LOOP);
        tm_spawn(&t, "tm.sync", 0, worker);
        tm_measure(&t);
        rts_metric_check_bool(t.m, "sem_failed", s.failed);
        if (s.failed)
            rts_metric_invalidate(t.m, "a take of the only token, or its give back, failed");
    }
    rts_sem_destroy(s.sem);
    return t.m ? 0 : 1;
}

RTS_BENCH_DEFINE(rts_bench_tm_sync) =
    TM_BENCH("tm.sync", "Thread-Metric synchronization processing: semaphore take and give", 0);
