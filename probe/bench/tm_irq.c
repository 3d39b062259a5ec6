/*
 * tm.irq — Thread-Metric's interrupt processing test: a thread raises a
 * software interrupt; the handler counts and gives a semaphore, which the
 * thread then takes and counts. A period's count is the interrupts handled
 * (the handler's counter), as the suite reports; the thread's counter must
 * agree with it within one, or the result is invalid.
 *
 * On POSIX the "interrupt" is a signal the thread sends itself (the port's
 * soft IRQ): the handler runs in that thread on the way back from the
 * kernel, which is the closest a user process gets to an interrupt.
 */
#include "thread_metric.h"

typedef struct {
    bench_counter thread_counter, handler_counter;
    rts_sem *sem;
    bool take_failed;
} irq_state;

static void handler(void *arg)
{
    irq_state *s = arg;
    bench_count(&s->handler_counter);
    rts_sem_give(s->sem);
}

static inline void irq_loop(tm_thread *th, irq_state *s, bool work, unsigned phase)
{
    const tm_test *t = th->t;
    while (tm_in_phase(t, phase)) {
        if (work) {
            rts_soft_irq_raise();
            /* The handler has run, so the token is there: never a real wait. */
            if (rts_sem_take(s->sem, 0) != RTS_OK) {
                s->take_failed = true;
                break;
            }
        }
        bench_count(&s->thread_counter);
    }
}

TM_ONE_THREAD(worker, irq_loop, irq_state)

static int run(rts_ctx *ctx)
{
    irq_state s = { .sem = NULL };
    tm_test t = { 0 };
    if (rts_sem_create(&s.sem, 0, 1) != RTS_OK || rts_soft_irq_register(handler, &s) != RTS_OK) {
        rts_ctx_fail(ctx, "cannot set up the semaphore and the software interrupt");
        rts_sem_destroy(s.sem);
        return 1;
    }
    if (tm_init(&t, ctx, "tm.irq", "software interrupts handled per period, each handler counting and giving a "
                                   "semaphore that the interrupted thread then takes", &s)) {
        tm_add_counter(&t, &s.handler_counter, TM_COUNTED);
        tm_add_counter(&t, &s.thread_counter, TM_LOOP);
        tm_spawn(&t, "tm.irq", 0, worker);
        tm_measure(&t);
        rts_metric_check_int(t.m, "interrupts", (long long)bench_read(&s.handler_counter));
        rts_metric_check_bool(t.m, "take_failed", s.take_failed);
        if (s.take_failed)
            rts_metric_invalidate(t.m, "the handler's token was not there after the interrupt returned");
    }
    rts_sem_destroy(s.sem);
    return t.m ? 0 : 1;
}

RTS_BENCH_DEFINE(rts_bench_tm_irq) =
    TM_BENCH("tm.irq",
             "Thread-Metric interrupt processing: software interrupt, handler gives a semaphore, thread takes",
             RTS_CAP_SOFT_IRQ);
