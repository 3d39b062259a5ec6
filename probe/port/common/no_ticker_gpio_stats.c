/*
 * Three optional services of rtscope/port.h for a port that has none of
 * them, each "not supported" with its capability flag clear:
 *   the ticker (RTS_CAP_TICKER): a periodic software timer whose callback
 *     gives a semaphore the waiter takes would do (FreeRTOS xTimerCreate
 *     with auto-reload, Zephyr k_timer with a period);
 *   GPIO lines (RTS_CAP_GPIO): a board drives an output register and stamps
 *     an input's edges in an edge interrupt, on rts_time_ns's clock;
 *   scheduler statistics (RTS_CAP_SCHED_STATS): a thread's run time and its
 *     wait for the CPU (FreeRTOS and Zephyr count the run time only).
 * A port that offers any of them implements all three itself.
 */
#include <stdio.h> /* snprintf only */

#include "rtscope/port.h"

rts_status rts_ticker_start(rts_ticker **out, uint64_t first_ns, uint64_t period_ns)
{
    (void)first_ns, (void)period_ns;
    *out = NULL;
    return RTS_ENOTSUP;
}

rts_status rts_ticker_wait(rts_ticker *t, uint64_t *expiries)
{
    (void)t, (void)expiries;
    return RTS_ENOTSUP;
}

void rts_ticker_stop(rts_ticker *t) { (void)t; }

/* The refusal of a GPIO request: no line, and why. */
static rts_status no_gpio(rts_gpio **out, char *why, size_t whysize)
{
    *out = NULL;
    snprintf(why, whysize, "this port has no GPIO lines");
    return RTS_ENOTSUP;
}

rts_status rts_gpio_output(rts_gpio **out, const char *chip, unsigned line, int level, char *why, size_t whysize)
{
    (void)chip, (void)line, (void)level;
    return no_gpio(out, why, whysize);
}

rts_status rts_gpio_set(rts_gpio *g, int level)
{
    (void)g, (void)level;
    return RTS_ENOTSUP;
}

rts_status rts_gpio_input(rts_gpio **out, const char *chip, unsigned line, int *level, char *why, size_t whysize)
{
    (void)chip, (void)line, (void)level;
    return no_gpio(out, why, whysize);
}

rts_status rts_gpio_next_edge(rts_gpio *g, uint64_t timeout_ns, rts_gpio_edge *edge)
{
    (void)g, (void)timeout_ns, (void)edge;
    return RTS_ENOTSUP;
}

void rts_gpio_close(rts_gpio *g) { (void)g; }

rts_status rts_sched_stats_open(rts_sched_stats **out)
{
    *out = NULL;
    return RTS_ENOTSUP;
}

rts_status rts_sched_stats_read(rts_sched_stats *s, rts_sched_times *times)
{
    (void)s, (void)times;
    return RTS_ENOTSUP;
}

void rts_sched_stats_close(rts_sched_stats *s) { (void)s; }
