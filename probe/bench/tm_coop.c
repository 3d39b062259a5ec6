/*
 * tm.coop — Thread-Metric's cooperative scheduling test: five threads of
 * equal priority each relinquish the CPU to the next and count, round and
 * round. Each period's count is the sum of their counters.
 */
#include "thread_metric.h"

#define THREADS 5

typedef struct {
    bench_counter counters[THREADS];
    bench_counter ready;
    bool start_timed_out;
} coop_state;

static inline void coop_loop(tm_thread *th, coop_state *s, bool work, unsigned phase)
{
    const tm_test *t = th->t;
    while (tm_in_phase(t, phase)) {
        if (work)
            rts_thread_relinquish();
        bench_count(&s->counters[th->index]);
    }
}

static void worker(void *p)
{
    tm_thread *th = p;
    coop_state *s = th->t->state;
    tm_thread_begin(th);
    /* Start together, so that every relinquish finds the others ready. */
    atomic_fetch_add(&s->ready, 1);
    if (!bench_await(&s->ready, THREADS, BENCH_TIMEOUT_NS)) {
        s->start_timed_out = true;
        rts_ctx_stop(th->t->ctx);
    }
    coop_loop(th, s, false, TM_CALIBRATING);
    coop_loop(th, s, true, TM_MEASURING);
    tm_thread_end(th);
}

static int run(rts_ctx *ctx)
{
    coop_state s = { .start_timed_out = false };
    tm_test t = { 0 };
    if (!tm_init(&t, ctx, "tm.coop", "relinquishes per period by 5 equal-priority threads taking turns", &s))
        return 1;
    for (unsigned i = 0; i < THREADS; i++)
        tm_add_counter(&t, &s.counters[i], TM_COUNTED | TM_LOOP);
    for (unsigned i = 0; i < THREADS && tm_spawn(&t, "tm-coop", 0, worker); i++)
        ;
    tm_measure(&t);
    if (s.start_timed_out)
        rts_metric_invalidate(t.m, "the five threads did not all start within 2 s");
    return 0;
}

RTS_BENCH_DEFINE(rts_bench_tm_coop) =
    TM_BENCH("tm.coop", "Thread-Metric cooperative scheduling: 5 equal-priority threads relinquishing in turn", 0);
