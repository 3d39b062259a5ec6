/*
 * ThreadX's interrupts on the posix-sim board (board.h), as its Linux port
 * simulates them: an interrupt is a host thread that, when its source
 * fires, saves the running ThreadX thread's context (which suspends it:
 * _tx_thread_context_save), runs the handler, in which ThreadX's services
 * are called as from any interrupt, and restores (resuming the thread, or
 * the scheduler when the handler readied a higher one). The port's own
 * tick is such a thread; the software and the timer interrupt are two
 * more. Also the byte pool's memory, from the host.
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <semaphore.h>
#include <stdlib.h>
#include <time.h>

#include "tx_api.h"

#include "board.h"
#include "board_glue.h"

/* The kernel's Linux port (ports/linux/gnu/src). */
VOID _tx_thread_context_save(VOID);
VOID _tx_thread_context_restore(VOID);

/* Run handler as an interrupt of whatever ThreadX thread runs. */
#define AS_INTERRUPT(call)                                                                                             \
    do {                                                                                                               \
        _tx_thread_context_save();                                                                                     \
        call;                                                                                                          \
        _tx_thread_context_restore();                                                                                  \
    } while (0)

/* Start an interrupt thread, at the host priority the simulator gives its
 * own tick's (SCHED_FIFO TX_LINUX_PRIORITY_ISR, above its threads'; where
 * the host refuses real-time priorities, the simulator's threads have none
 * either): an interrupt that ordinary host threads could hold off would
 * let a ThreadX thread, real-time on the host, starve it. */
static int start_interrupt_thread(pthread_t *thread, void *(*body)(void *))
{
    int err = pthread_create(thread, NULL, body, NULL);
    if (err == 0) {
        struct sched_param sp = { .sched_priority = TX_LINUX_PRIORITY_ISR };
        (void)pthread_setschedparam(*thread, SCHED_FIFO, &sp);
    }
    return err;
}

/* A wait on the host that the simulator's suspend and resume signals may
 * interrupt: taken again. */
static void wait_on(sem_t *sem)
{
    while (sem_wait(sem) != 0 && errno == EINTR)
        ;
}

/* ------------------------------------------------------------------ heap */

/* 256 MiB of the host's address space, touched only where used. */
#define HEAP_BYTES ((size_t)256 << 20)

void rts_threadx_heap_memory(void **base, size_t *bytes)
{
    *base = malloc(HEAP_BYTES);
    if (!*base)
        board_fatal("ThreadX simulator: no memory for the heap");
    *bytes = HEAP_BYTES;
}

/* ------------------------------------------------- software interrupt */

/* The raising thread posts a request and waits for the interrupt to be
 * over; the interrupt thread suspends it meanwhile, as a CPU would. */
static struct {
    pthread_t thread;
    bool started;
    sem_t request, done;
    void (*handler)(void *arg);
    void *arg;
} soft;

static void *soft_irq_thread(void *unused)
{
    (void)unused;
    for (;;) {
        wait_on(&soft.request);
        AS_INTERRUPT(soft.handler(soft.arg));
        sem_post(&soft.done);
    }
    return NULL;
}

rts_status board_soft_irq_register(void (*handler)(void *arg), void *arg)
{
    soft.handler = handler;
    soft.arg = arg;
    if (soft.started)
        return RTS_OK;
    if (sem_init(&soft.request, 0, 0) != 0 || sem_init(&soft.done, 0, 0) != 0 ||
        start_interrupt_thread(&soft.thread, soft_irq_thread) != 0)
        return RTS_EFAIL;
    soft.started = true;
    return RTS_OK;
}

rts_status board_soft_irq_raise(void)
{
    if (!soft.started)
        return RTS_EINVAL;
    sem_post(&soft.request);
    wait_on(&soft.done);
    return RTS_OK;
}

/* ---------------------------------------------------- timer interrupt */

/* A host thread that sleeps until each expiry on CLOCK_MONOTONIC (the
 * board's clock) and interrupts there; stop wakes it and waits for it. A
 * delivery later than a whole period serves the latest expiry, the ones it
 * merged are missed. */
static struct {
    pthread_t thread;
    pthread_mutex_t lock;
    pthread_cond_t wake;
    bool running, stop;
    void (*handler)(void *arg, uint64_t planned_ns, uint64_t entered_ns);
    void *arg;
    uint64_t next_ns, period_ns, missed;
} periodic = { .lock = PTHREAD_MUTEX_INITIALIZER };

static void call_handler(uint64_t planned)
{
    uint64_t entered = board_time_ns();
    if (entered > planned) {
        uint64_t merged = (entered - planned) / periodic.period_ns;
        planned += merged * periodic.period_ns;
        periodic.missed += merged;
    }
    periodic.next_ns = planned + periodic.period_ns;
    periodic.handler(periodic.arg, planned, entered);
}

static void *timer_irq_thread(void *unused)
{
    (void)unused;
    pthread_mutex_lock(&periodic.lock);
    while (!periodic.stop) {
        struct timespec at = { (time_t)(periodic.next_ns / 1000000000u), (long)(periodic.next_ns % 1000000000u) };
        if (pthread_cond_timedwait(&periodic.wake, &periodic.lock, &at) != ETIMEDOUT || periodic.stop)
            continue;
        uint64_t planned = periodic.next_ns;
        pthread_mutex_unlock(&periodic.lock);
        AS_INTERRUPT(call_handler(planned));
        pthread_mutex_lock(&periodic.lock);
    }
    pthread_mutex_unlock(&periodic.lock);
    return NULL;
}

rts_status board_timer_irq_start(uint64_t first_ns, uint64_t period_ns,
                                 void (*handler)(void *arg, uint64_t planned_ns, uint64_t entered_ns), void *arg)
{
    if (periodic.running)
        return RTS_EAGAIN;
    if (!handler || period_ns == 0)
        return RTS_EINVAL;
    pthread_condattr_t attr;
    pthread_condattr_init(&attr);
    pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
    int err = pthread_cond_init(&periodic.wake, &attr);
    pthread_condattr_destroy(&attr);
    if (err)
        return RTS_EFAIL;
    periodic.handler = handler;
    periodic.arg = arg;
    periodic.next_ns = first_ns;
    periodic.period_ns = period_ns;
    periodic.missed = 0;
    periodic.stop = false;
    if (start_interrupt_thread(&periodic.thread, timer_irq_thread) != 0) {
        pthread_cond_destroy(&periodic.wake);
        return RTS_EFAIL;
    }
    periodic.running = true;
    return RTS_OK;
}

rts_status board_timer_irq_stop(uint64_t *missed)
{
    if (!periodic.running)
        return RTS_EINVAL;
    pthread_mutex_lock(&periodic.lock);
    periodic.stop = true;
    pthread_cond_signal(&periodic.wake);
    pthread_mutex_unlock(&periodic.lock);
    pthread_join(periodic.thread, NULL);
    pthread_cond_destroy(&periodic.wake);
    periodic.running = false;
    if (missed)
        *missed = periodic.missed;
    return RTS_OK;
}
