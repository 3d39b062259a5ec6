/*
 * tm.sync — Thread-Metric's synchronization processing test: one thread
 * takes a semaphore and gives it back. A period's count is the pairs made.
 */
#include "thread_metric.h"

typedef struct {
    _Atomic uint64_t pairs;
    rts_sem *sem;
    uint64_t sem_errors;
} sync_state;

static void worker(void *p)
{
    tm_thread *th = p;
    sync_state *s = th->t->state;
    tm_thread_begin(th);
    while (!rts_ctx_stopping(th->t->ctx)) {
        if (rts_sem_take(s->sem, 0) != RTS_OK || rts_sem_give(s->sem) != RTS_OK) {
            s->sem_errors++;
            break;
        }
        tm_count(&s->pairs);
    }
    tm_thread_end(th);
}

static int run(rts_ctx *ctx)
{
    sync_state s = { .sem_errors = 0 };
    tm_test t = { 0 };
    if (!tm_init(&t, ctx, "tm.sync", "semaphore take and give pairs per period (never blocking)", &s))
        return 1;
    if (rts_sem_create(&s.sem, 1, 1) != RTS_OK) {
        rts_ctx_fail(ctx, "cannot create a semaphore");
        return 1;
    }
    tm_add_counter(&t, &s.pairs);
    tm_spawn(&t, "tm-sync", 0, worker);
    tm_measure(&t);
    rts_metric_check_int(t.m, "sem_errors", (long long)s.sem_errors);
    if (s.sem_errors)
        rts_metric_invalidate(t.m, "a take of the only token, or its give back, failed");
    rts_sem_destroy(s.sem);
    return 0;
}

static const rts_param_decl params[] = { TM_PARAMS };
static const char *const metrics[] = { "tm.sync", NULL };

const rts_bench rts_bench_tm_sync = {
    .id = "tm.sync",
    .summary = "Thread-Metric synchronization processing: semaphore take and give",
    .metrics = metrics,
    .params = params,
    .nparams = sizeof params / sizeof params[0],
    .needs_caps = RTS_CAP_AFFINITY,
    .planned_s = tm_planned_s,
    .run = run,
};
