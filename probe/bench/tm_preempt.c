/*
 * tm.preempt — Thread-Metric's preemptive scheduling test: five threads of
 * rising priority. The lowest resumes the next higher one, which preempts
 * it at once, counts, resumes the next, and so on up the chain; each then
 * suspends itself and the one below it continues. A period's count is the
 * sum of the five counters.
 *
 * After every resume the resumer checks that the higher thread already ran
 * (its counter moved): a preemption observed. Under strict priorities on
 * one CPU every resume is one; any that is not makes the metric invalid.
 */
#include "thread_metric.h"

#define THREADS 5

typedef struct {
    bench_counter counters[THREADS];
    bench_counter suspended; /* threads 1..4 that reached their first suspend */
    bench_counter spawned;   /* set once every handle is known */
    uint64_t resumes[THREADS], preempted[THREADS];
    bool start_timed_out;
} preempt_state;

/* Resume the next higher thread and count whether it preempted at once. */
static void resume_next(tm_thread *th, preempt_state *s)
{
    uint64_t before = bench_read(&s->counters[th->index + 1]);
    rts_thread_resume(th->t->handles[th->index + 1]);
    if (rts_ctx_stopping(th->t->ctx))
        return; /* the woken thread may have seen the stop and not counted */
    s->resumes[th->index]++;
    if (bench_read(&s->counters[th->index + 1]) != before)
        s->preempted[th->index]++;
}

static void step(tm_thread *th, preempt_state *s)
{
    if (th->index + 1 < THREADS)
        resume_next(th, s);
    bench_count(&s->counters[th->index]);
}

static void worker(void *p)
{
    tm_thread *th = p;
    preempt_state *s = th->t->state;
    rts_ctx *ctx = th->t->ctx;
    tm_thread_begin(th);
    if (th->index > 0) {
        atomic_fetch_add(&s->suspended, 1);
        for (;;) {
            rts_thread_suspend_self();
            if (rts_ctx_stopping(ctx))
                break;
            step(th, s);
        }
    } else {
        /* Start the chain once the others wait suspended and are all known. */
        if (!bench_await(&s->suspended, THREADS - 1, BENCH_TIMEOUT_NS) ||
            !bench_await(&s->spawned, 1, BENCH_TIMEOUT_NS)) {
            s->start_timed_out = true;
            rts_ctx_stop(ctx);
        }
        while (!rts_ctx_stopping(ctx))
            step(th, s);
    }
    tm_thread_end(th);
}

static void release(tm_test *t)
{
    for (unsigned i = 1; i < t->nthreads; i++)
        rts_thread_resume(t->handles[i]);
}

static int run(rts_ctx *ctx)
{
    preempt_state s = { .start_timed_out = false };
    tm_test t = { 0 };
    if (!tm_init(&t, ctx, "tm.preempt", "thread runs per period in a chain of 5 priorities, each resuming the "
                                        "next higher one and suspending itself", &s))
        return 1;
    t.release = release;
    for (unsigned i = 0; i < THREADS; i++)
        tm_add_counter(&t, &s.counters[i]);
    /* Thread i runs at the granted priority + i: thread 0 is the lowest. */
    for (unsigned i = 0; i < THREADS && tm_spawn(&t, "tm-preempt", (int)i, worker); i++)
        ;
    atomic_store(&s.spawned, t.nthreads == THREADS);
    tm_measure(&t);
    uint64_t resumes = 0, preempted = 0;
    for (unsigned i = 0; i < THREADS; i++) {
        resumes += s.resumes[i];
        preempted += s.preempted[i];
    }
    rts_metric_check_int(t.m, "preemptions_expected", (long long)resumes);
    rts_metric_check_int(t.m, "preemptions_observed", (long long)preempted);
    if (s.start_timed_out)
        rts_metric_invalidate(t.m, "the chain did not start within 2 s");
    if (preempted != resumes)
        rts_metric_invalidate(t.m, "%llu of %llu resumes of a higher-priority thread did not preempt at once",
                              (unsigned long long)(resumes - preempted), (unsigned long long)resumes);
    return 0;
}

RTS_BENCH_DEFINE(rts_bench_tm_preempt) =
    TM_BENCH("tm.preempt",
             "Thread-Metric preemptive scheduling: a chain of 5 priorities resuming upwards",
             RTS_CAP_PRIORITY_SCHED);
