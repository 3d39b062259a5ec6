/*
 * FreeRTOS's software interrupt on the posix-sim board (board.h): in
 * FreeRTOS's POSIX simulator each task is a host thread and only the
 * running one takes signals, so signals are its interrupts.
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <string.h>

#include "board.h"

/* SIGUSR2, sent by the raising task to its own thread: the host delivers
 * it before pthread_kill returns, with every other signal held, as an
 * interrupt of the highest priority. (The simulator itself uses SIGALRM
 * for its tick and SIGUSR1 to resume threads.) */
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
