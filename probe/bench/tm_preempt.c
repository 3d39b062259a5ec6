/*
 * tm.preempt — Thread-Metric's preemptive scheduling test: five threads of
 * rising priority. The lowest resumes the next higher one, which preempts
 * it at once, resumes the next, and so on up the chain; each counts once
 * the ones above it have suspended themselves, then suspends itself and the
 * one below it continues. A period's count is the sum of the five counters.
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
    uint64_t resumes[THREADS], missed[THREADS];
    bool start_timed_out;
} preempt_state;

/* One turn of thread th in phase: resume the next higher thread (with its
 * work) and note whether it ran at once, then count. The check stays in the
 * loop without the work, so that the harness's timing includes it. */
static inline void turn(const tm_test *t, unsigned i, preempt_state *s, bool work, unsigned phase,
                        uint64_t *resumes, uint64_t *missed)
{
    if (i + 1 < THREADS) {
        uintptr_t before = (uintptr_t)bench_read(&s->counters[i + 1]);
        if (work)
            rts_thread_resume(t->handles[i + 1]);
        /* Unless the test just ended: the woken thread then may not count. */
        *missed += (uintptr_t)bench_read(&s->counters[i + 1]) == before && tm_in_phase(t, phase);
        (*resumes)++;
    }
    bench_count(&s->counters[i]);
}

static inline void lowest_loop(tm_thread *th, preempt_state *s, bool work, unsigned phase)
{
    const tm_test *t = th->t;
    uint64_t resumes = 0, missed = 0;
    while (tm_in_phase(t, phase))
        turn(t, th->index, s, work, phase, &resumes, &missed);
    if (work) {
        s->resumes[th->index] = resumes;
        s->missed[th->index] = missed;
    }
}

static void worker(void *p)
{
    tm_thread *th = p;
    preempt_state *s = th->t->state;
    tm_thread_begin(th);
    if (th->index > 0) {
        uint64_t resumes = 0, missed = 0;
        atomic_fetch_add(&s->suspended, 1);
        for (;;) {
            rts_thread_suspend_self();
            if (!tm_in_phase(th->t, TM_MEASURING))
                break;
            turn(th->t, th->index, s, true, TM_MEASURING, &resumes, &missed);
        }
        s->resumes[th->index] = resumes;
        s->missed[th->index] = missed;
    } else {
        /* Start the chain once the others wait suspended and are all known. */
        if (!bench_await(&s->suspended, THREADS - 1, BENCH_TIMEOUT_NS) ||
            !bench_await(&s->spawned, 1, BENCH_TIMEOUT_NS)) {
            s->start_timed_out = true;
            rts_ctx_stop(th->t->ctx);
        }
        lowest_loop(th, s, false, TM_CALIBRATING);
        lowest_loop(th, s, true, TM_MEASURING);
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
        tm_add_counter(&t, &s.counters[i], TM_COUNTED | TM_LOOP);
    /* Thread i runs at the granted priority + i: thread 0 is the lowest. */
    for (unsigned i = 0; i < THREADS && tm_spawn(&t, "tm-preempt", (int)i, worker); i++)
        ;
    atomic_store(&s.spawned, t.nthreads == THREADS);
    tm_measure(&t);
    uint64_t resumes = 0, missed = 0;
    for (unsigned i = 0; i < THREADS; i++) {
        resumes += s.resumes[i];
        missed += s.missed[i];
    }
    rts_metric_check_int(t.m, "preemptions_expected", (long long)resumes);
    rts_metric_check_int(t.m, "preemptions_observed", (long long)(resumes - missed));
    if (s.start_timed_out)
        rts_metric_invalidate(t.m, "the chain did not start within 2 s");
    if (missed)
        rts_metric_invalidate(t.m, "%llu of %llu resumes of a higher-priority thread did not preempt at once",
                              (unsigned long long)missed, (unsigned long long)resumes);
    return 0;
}

RTS_BENCH_DEFINE(rts_bench_tm_preempt) =
    TM_BENCH("tm.preempt",
             "Thread-Metric preemptive scheduling: a chain of 5 priorities resuming upwards",
             RTS_CAP_PRIORITY_SCHED);
