/*
 * tm.irq_preempt — Thread-Metric's interrupt preemption test: a thread
 * raises a software interrupt whose handler resumes a higher-priority
 * thread; that thread preempts, counts and suspends itself again. A
 * period's count is the sum of the two threads' and the handler's counters.
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
    uint64_t raised, preempted;
    bool start_timed_out;
} irq_preempt_state;

static void handler(void *arg)
{
    irq_preempt_state *s = arg;
    bench_count(&s->handler_counter);
    rts_thread_resume(s->resumed);
}

static void raiser(tm_thread *th, irq_preempt_state *s)
{
    rts_ctx *ctx = th->t->ctx;
    if (!bench_await(&s->suspended, 1, BENCH_TIMEOUT_NS) || !bench_await(&s->spawned, 1, BENCH_TIMEOUT_NS)) {
        s->start_timed_out = true;
        rts_ctx_stop(ctx);
    }
    while (!rts_ctx_stopping(ctx)) {
        uint64_t before = bench_read(&s->resumed_counter);
        rts_soft_irq_raise();
        if (!rts_ctx_stopping(ctx)) {
            s->raised++;
            s->preempted += bench_read(&s->resumed_counter) != before;
        }
        bench_count(&s->raiser_counter);
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
            if (rts_ctx_stopping(th->t->ctx))
                break;
            bench_count(&s->resumed_counter);
        }
    } else
        raiser(th, s);
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
    if (!tm_init(&t, ctx, "tm.irq_preempt", "software interrupts per period whose handler resumes a "
                                            "higher-priority thread that preempts; the interrupt is a signal to the "
                                            "thread itself (POSIX port)", &s))
        return 1;
    if (rts_soft_irq_register(handler, &s) != RTS_OK) {
        rts_ctx_fail(ctx, "cannot set up the software interrupt");
        return 1;
    }
    tm_add_counter(&t, &s.raiser_counter);
    tm_add_counter(&t, &s.resumed_counter);
    tm_add_counter(&t, &s.handler_counter);
    /* First the higher thread, which suspends at once; then the raiser. */
    if (tm_spawn(&t, "tm-irq-high", 1, worker)) {
        t.release = release;
        s.resumed = t.handles[0];
        atomic_store(&s.spawned, 1);
        tm_spawn(&t, "tm-irq-low", 0, worker);
    }
    tm_measure(&t);
    rts_metric_check_int(t.m, "preemptions_expected", (long long)s.raised);
    rts_metric_check_int(t.m, "preemptions_observed", (long long)s.preempted);
    if (s.start_timed_out)
        rts_metric_invalidate(t.m, "the threads did not start within 2 s");
    if (s.preempted != s.raised)
        rts_metric_invalidate(t.m, "%llu of %llu interrupts did not let the resumed higher-priority thread run "
                                   "before the raiser continued",
                              (unsigned long long)(s.raised - s.preempted), (unsigned long long)s.raised);
    return 0;
}

RTS_BENCH_DEFINE(rts_bench_tm_irq_preempt) =
    TM_BENCH("tm.irq_preempt",
             "Thread-Metric interrupt preemption: the handler resumes a higher-priority thread",
             RTS_CAP_PRIORITY_SCHED | RTS_CAP_SOFT_IRQ);
