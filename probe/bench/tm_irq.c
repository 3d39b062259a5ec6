/*
 * tm.irq — Thread-Metric's interrupt processing test: a thread raises a
 * software interrupt; the handler counts and gives a semaphore, which the
 * thread then takes and counts. A period's count is the sum of the thread's
 * and the handler's counters.
 *
 * On POSIX the "interrupt" is a signal the thread sends itself (the port's
 * soft IRQ): the handler runs in that thread on the way back from the
 * kernel, which is the closest a user process gets to an interrupt.
 */
#include "thread_metric.h"

typedef struct {
    _Atomic uint64_t thread_counter, handler_counter;
    rts_sem *sem;
    uint64_t take_failures;
} irq_state;

static void handler(void *arg)
{
    irq_state *s = arg;
    tm_count(&s->handler_counter);
    rts_sem_give(s->sem);
}

static void worker(void *p)
{
    tm_thread *th = p;
    irq_state *s = th->t->state;
    tm_thread_begin(th);
    while (!rts_ctx_stopping(th->t->ctx)) {
        rts_soft_irq_raise();
        /* The handler has run, so the token is there: never a real wait. */
        if (rts_sem_take(s->sem, 0) != RTS_OK) {
            s->take_failures++;
            break;
        }
        tm_count(&s->thread_counter);
    }
    tm_thread_end(th);
}

static int run(rts_ctx *ctx)
{
    irq_state s = { .take_failures = 0 };
    tm_test t = { 0 };
    if (!tm_init(&t, ctx, "tm.irq", "software interrupts per period, each handled (count, semaphore give) and "
                                    "followed by the thread's take; the interrupt is a signal to the thread itself "
                                    "(POSIX port)", &s))
        return 1;
    if (rts_sem_create(&s.sem, 0, 1) != RTS_OK || rts_soft_irq_register(handler, &s) != RTS_OK) {
        rts_ctx_fail(ctx, "cannot set up the semaphore and the software interrupt");
        rts_sem_destroy(s.sem);
        return 1;
    }
    tm_add_counter(&t, &s.thread_counter);
    tm_add_counter(&t, &s.handler_counter);
    tm_spawn(&t, "tm-irq", 0, worker);
    tm_measure(&t);
    rts_metric_check_int(t.m, "interrupts", (long long)tm_read(&s.handler_counter));
    rts_metric_check_int(t.m, "take_failures", (long long)s.take_failures);
    if (s.take_failures)
        rts_metric_invalidate(t.m, "the handler's token was not there after the interrupt returned");
    rts_sem_destroy(s.sem);
    return 0;
}

static const rts_param_decl params[] = { TM_PARAMS };
static const char *const metrics[] = { "tm.irq", NULL };

const rts_bench rts_bench_tm_irq = {
    .id = "tm.irq",
    .summary = "Thread-Metric interrupt processing: software interrupt, handler gives a semaphore, thread takes",
    .metrics = metrics,
    .params = params,
    .nparams = sizeof params / sizeof params[0],
    .needs_caps = RTS_CAP_AFFINITY | RTS_CAP_SOFT_IRQ,
    .planned_s = tm_planned_s,
    .run = run,
};
