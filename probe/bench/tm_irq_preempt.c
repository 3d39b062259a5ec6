/*
 * tm.irq_preempt — Thread-Metric's interrupt preemption test: a thread
 * raises a software interrupt whose handler resumes a higher-priority
 * thread; that thread preempts, counts and suspends itself again. A
 * period's count is the interrupts handled (the handler's counter), as the
 * suite reports; the two threads' counters must agree with it within one,
 * or the result is invalid.
 *
 * After each interrupt the raiser checks that the higher thread already ran
 * (a preemption observed). On POSIX the interrupt is a signal the thread
 * sends itself, and the resumed thread preempts on the kernel's return from
 * the handler's wake-up call rather than at the end of the handler, as on
 * an RTOS; the order the test checks is the same.
 */
#include "thread_metric.h"

typedef struct {
    bench_counter raiser_counter, resumed_counter, handler_counter;
    bench_counter suspended; /* the higher thread reached its first suspend */
    bench_counter spawned;   /* its handle is known */
    rts_thread *resumed;
    uint64_t raised, missed;
    bool start_timed_out;
} irq_preempt_state;

static void handler(void *arg)
{
    irq_preempt_state *s = arg;
    bench_count(&s->handler_counter);
    rts_thread_resume(s->resumed);
}

/* The raiser's loop. The preemption check stays in the loop without the
 * work, so that the harness's timing includes it. */
static inline void raiser_loop(tm_thread *th, irq_preempt_state *s, bool work, unsigned phase)
{
    const tm_test *t = th->t;
    uint64_t raised = 0, missed = 0;
    while (tm_in_phase(t, phase)) {
        uintptr_t before = (uintptr_t)bench_read(&s->resumed_counter);
        if (work)
            rts_soft_irq_raise();
        /* Unless the test just ended: the resumed thread then may not count. */
        missed += (uintptr_t)bench_read(&s->resumed_counter) == before && tm_in_phase(t, phase);
        raised++;
        bench_count(&s->raiser_counter);
    }
    if (work) {
        s->raised = raised;
        s->missed = missed;
    }
}

static void worker(void *p)
{
    tm_thread *th = p;
    irq_preempt_state *s = th->t->state;
    tm_thread_begin(th);
    if (th->index == 0) {
        atomic_store(&s->suspended, 1);
        for (;;) {
            rts_thread_suspend_self();
            if (!tm_in_phase(th->t, TM_MEASURING))
                break;
            bench_count(&s->resumed_counter);
        }
    } else {
        if (!bench_await(&s->suspended, 1, BENCH_TIMEOUT_NS) || !bench_await(&s->spawned, 1, BENCH_TIMEOUT_NS)) {
            s->start_timed_out = true;
            rts_ctx_stop(th->t->ctx);
        }
        raiser_loop(th, s, false, TM_CALIBRATING);
        raiser_loop(th, s, true, TM_MEASURING);
    }
    tm_thread_end(th);
}

static void release(tm_test *t)
{
    rts_thread_resume(t->handles[0]);
}

static int run(rts_ctx *ctx)
{
    irq_preempt_state s = { .start_timed_out = false };
    tm_test t = { 0 };
    if (!tm_init(&t, ctx, "tm.irq_preempt", "software interrupts handled per period, each handler resuming a "
                                            "higher-priority thread that preempts the interrupted one", &s))
        return 1;
    if (rts_soft_irq_register(handler, &s) != RTS_OK) {
        rts_ctx_fail(ctx, "cannot set up the software interrupt");
        return 1;
    }
    tm_add_counter(&t, &s.handler_counter, TM_COUNTED);
    tm_add_counter(&t, &s.raiser_counter, TM_LOOP);
    tm_add_counter(&t, &s.resumed_counter, TM_LOOP);
    /* First the higher thread, which suspends at once; then the raiser. */
    if (tm_spawn(&t, "tm-irq-high", 1, worker)) {
        t.release = release;
        s.resumed = t.handles[0];
        atomic_store(&s.spawned, 1);
        tm_spawn(&t, "tm-irq-low", 0, worker);
    }
    tm_measure(&t);
    rts_metric_check_int(t.m, "preemptions_expected", (long long)s.raised);
    rts_metric_check_int(t.m, "preemptions_observed", (long long)(s.raised - s.missed));
    if (s.start_timed_out)
        rts_metric_invalidate(t.m, "the threads did not start within 2 s");
    if (s.missed)
        rts_metric_invalidate(t.m, "%llu of %llu interrupts did not let the resumed higher-priority thread run "
                                   "before the raiser continued",
                              (unsigned long long)s.missed, (unsigned long long)s.raised);
    return 0;
}

RTS_BENCH_DEFINE(rts_bench_tm_irq_preempt) =
    TM_BENCH("tm.irq_preempt",
             "Thread-Metric interrupt preemption: the handler resumes a higher-priority thread",
             RTS_CAP_PRIORITY_SCHED | RTS_CAP_SOFT_IRQ);
