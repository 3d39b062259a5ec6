/*
 * FreeRTOS's interrupts on the posix-sim board (board.h): in FreeRTOS's
 * POSIX simulator each task is a host thread and only the running one
 * takes signals (the simulator holds them in every other thread), so
 * signals are its interrupts. The simulator itself uses SIGALRM for its
 * tick and SIGUSR1 to resume threads.
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <string.h>

#include "../../../posix/timer_irq_posix.h"
#include "board.h"

/* ------------------------------------------------- software interrupt */

/* SIGUSR2, sent by the raising task to its own thread: the host delivers
 * it before pthread_kill returns, with every other signal held, as an
 * interrupt of the highest priority. */
#define SOFT_IRQ_SIGNAL SIGUSR2

static void (*soft_irq_handler)(void *);
static void *soft_irq_arg;

static void soft_irq_trampoline(int sig)
{
    (void)sig;
    int saved = errno;
    soft_irq_handler(soft_irq_arg);
    errno = saved;
}

/* Taken with every signal blocked meanwhile. */
rts_status board_soft_irq_register(void (*handler)(void *arg), void *arg)
{
    soft_irq_handler = handler;
    soft_irq_arg = arg;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = soft_irq_trampoline;
    sigfillset(&sa.sa_mask);
    return sigaction(SOFT_IRQ_SIGNAL, &sa, NULL) == 0 ? RTS_OK : RTS_EFAIL;
}

rts_status board_soft_irq_raise(void)
{
    return pthread_kill(pthread_self(), SOFT_IRQ_SIGNAL) == 0 ? RTS_OK : RTS_EFAIL;
}

/* ---------------------------------------------------- timer interrupt */

#define TIMER_IRQ_SIGNAL (SIGRTMIN + 1)

/* A POSIX timer on CLOCK_MONOTONIC whose signal goes to the process: the
 * host gives it to the one thread that takes signals, the running task's,
 * or keeps it until then. */
rts_status board_timer_irq_start(uint64_t first_ns, uint64_t period_ns,
                                 void (*handler)(void *arg, uint64_t planned_ns, uint64_t entered_ns), void *arg)
{
    struct sigevent sev;
    memset(&sev, 0, sizeof sev);
    sev.sigev_notify = SIGEV_SIGNAL;
    sev.sigev_signo = TIMER_IRQ_SIGNAL;
    sigset_t all;
    sigfillset(&all);
    int err = rts_posix_timer_irq_start(&sev, &all, first_ns, period_ns, handler, arg);
    return err == 0 ? RTS_OK : err == EINVAL ? RTS_EINVAL : RTS_EFAIL;
}

rts_status board_timer_irq_stop(uint64_t *missed)
{
    return rts_posix_timer_irq_stop(missed) == 0 ? RTS_OK : RTS_EFAIL;
}
