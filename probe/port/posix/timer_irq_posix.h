/*
 * The timer interrupt of rtscope/port.h (rts_timer_irq_start) as a POSIX
 * timer on CLOCK_MONOTONIC whose expiries are a signal: the POSIX port
 * directs it at the starting thread, the FreeRTOS simulator board at the
 * process (whichever task runs takes it). One timer at a time.
 */
#ifndef RTSCOPE_POSIX_TIMER_IRQ_H
#define RTSCOPE_POSIX_TIMER_IRQ_H

#include <signal.h>

#include "rtscope/port.h"

/* Arm the timer: expiries at first_ns, then every period_ns, each a signal
 * sev->sigev_signo delivered as sev says, whose handler (installed here,
 * with mask blocked meanwhile) calls handler as rts_timer_irq_start
 * describes. Returns 0, or the errno of the call that failed (EINVAL for
 * a zero period). */
int rts_posix_timer_irq_start(struct sigevent *sev, const sigset_t *mask, uint64_t first_ns,
                                     uint64_t period_ns,
                                     void (*handler)(void *arg, uint64_t planned_ns, uint64_t entered_ns),
                                     void *arg);

/* Disarm it; a signal still pending is dropped. Expiries merged so far go
 * to *missed (may be NULL). Returns 0 or timer_delete's errno. */
int rts_posix_timer_irq_stop(uint64_t *missed);

#endif
