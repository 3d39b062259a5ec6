/* The timer interrupt as a POSIX timer's signal (see timer_irq_posix.h). */
#include "timer_irq_posix.h"

#include <errno.h>
#include <string.h>
#include <time.h>

#include "monotonic.h"

static timer_t irq_timer;
static int irq_signal;
static void (*timer_handler)(void *, uint64_t, uint64_t);
static void *timer_arg;
static uint64_t timer_first_ns, timer_period_ns, timer_expiries, timer_missed;

/* The clock first; then the expiry this signal serves: the one after the
 * last served, past those the kernel merged into it (its overrun). */
static void timer_trampoline(int sig)
{
    uint64_t entered = rts_posix_monotonic_ns();
    (void)sig;
    int saved = errno;
    int merged = timer_getoverrun(irq_timer);
    if (merged > 0) {
        timer_expiries += (uint64_t)merged;
        timer_missed += (uint64_t)merged;
    }
    uint64_t planned = timer_first_ns + timer_expiries * timer_period_ns;
    timer_expiries++;
    if (timer_handler)
        timer_handler(timer_arg, planned, entered);
    errno = saved;
}

static struct timespec timespec_of(uint64_t ns)
{
    return (struct timespec){ .tv_sec = (time_t)(ns / 1000000000u), .tv_nsec = (long)(ns % 1000000000u) };
}

int rts_posix_timer_irq_start(struct sigevent *sev, const sigset_t *mask, uint64_t first_ns, uint64_t period_ns,
                              void (*handler)(void *arg, uint64_t planned_ns, uint64_t entered_ns), void *arg)
{
    if (period_ns == 0)
        return EINVAL;
    timer_handler = handler;
    timer_arg = arg;
    timer_first_ns = first_ns;
    timer_period_ns = period_ns;
    timer_expiries = timer_missed = 0;
    irq_signal = sev->sigev_signo;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = timer_trampoline;
    sa.sa_mask = *mask;
    if (sigaction(irq_signal, &sa, NULL) != 0 || timer_create(CLOCK_MONOTONIC, sev, &irq_timer) != 0)
        return errno;
    struct itimerspec its = { .it_value = timespec_of(first_ns), .it_interval = timespec_of(period_ns) };
    if (timer_settime(irq_timer, TIMER_ABSTIME, &its, NULL) != 0) {
        int err = errno;
        timer_delete(irq_timer);
        return err;
    }
    return 0;
}

int rts_posix_timer_irq_stop(uint64_t *missed)
{
    int err = timer_delete(irq_timer) == 0 ? 0 : errno;
    signal(irq_signal, SIG_IGN);
    timer_handler = NULL;
    if (missed)
        *missed = timer_missed;
    return err;
}
