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

/* What a thread's turn works on, loaded once before its loop (a pass then
 * reloads nothing the calls in it might have changed). */
typedef struct {
    bench_counter *mine, *next; /* next: the higher thread's counter, NULL at the top */
    rts_thread *higher;
} chain_link;

static inline chain_link link_of(const tm_thread *th, preempt_state *s)
{
    unsigned i = th->index;
    bool top = i + 1 == THREADS;
    return (chain_link){ &s->counters[i], top ? NULL : &s->counters[i + 1], top ? NULL : th->t->handles[i + 1] };
}

/* One turn of a thread in phase: resume the next higher thread (with its
 * work) and note whether it ran at once, then count. The check stays in the
 * loop without the work, so that the harness's timing includes it; a miss
 * is the rare branch. */
static inline void turn(const tm_test *t, const chain_link *l, bool work, unsigned phase, uintptr_t *missed)
{
    if (l->next) {
        uintptr_t before = (uintptr_t)bench_read(l->next);
        if (work)
            rts_thread_resume(l->higher);
        /* Unless the test just ended: the woken thread then may not count. */
        if (__builtin_expect((uintptr_t)bench_read(l->next) == before, 0))
            *missed += tm_in_phase(t, phase);
    }
    bench_count(l->mine);
}

static inline void lowest_loop(const tm_test *t, const chain_link *l, preempt_state *s, bool work, unsigned phase)
{
    uintptr_t missed = 0;
    uintptr_t start = (uintptr_t)bench_read(l->mine);
    while (tm_in_phase(t, phase))
        turn(t, l, work, phase, &missed);
    if (work) {
        s->resumes[0] = (uintptr_t)bench_read(l->mine) - start; /* one a turn */
        s->missed[0] = missed;
    }
}

static void worker(void *p)
{
    tm_thread *th = p;
    preempt_state *s = th->t->state;
    tm_thread_begin(th);
    if (th->index > 0) {
        const tm_test *t = th->t;
        uintptr_t missed = 0;
        atomic_fetch_add(&s->suspended, 1);
        /* Every handle is known before the chain starts (spawned, awaited by
         * thread 0, which resumes the first of the others). */
        rts_thread_suspend_self();
        const chain_link l = link_of(th, s);
        while (tm_in_phase(t, TM_MEASURING)) {
            turn(t, &l, true, TM_MEASURING, &missed);
            rts_thread_suspend_self();
        }
        /* One resume a turn, every count of this thread's a turn's. */
        s->resumes[th->index] = l.next ? (uintptr_t)bench_read(l.mine) : 0;
        s->missed[th->index] = missed;
    } else {
        /* Start the chain once the others wait suspended and are all known. */
        if (!bench_await(&s->suspended, THREADS - 1, BENCH_TIMEOUT_NS) ||
            !bench_await(&s->spawned, 1, BENCH_TIMEOUT_NS)) {
            s->start_timed_out = true;
            rts_ctx_stop(th->t->ctx);
        }
        const chain_link l = link_of(th, s);
        lowest_loop(th->t, &l, s, false, TM_CALIBRATING);
        lowest_loop(th->t, &l, s, true, TM_MEASURING);
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
