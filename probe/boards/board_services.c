/*
 * What every RTOS port on a board (board.h) gives the same way, whatever the
 * kernel, compiled with the port (its port.mk): the capabilities the board
 * gives, the clock's name, the console and diagnostics kept whole under the
 * port's scheduler hold, the board's one result channel as the port's sink,
 * its timer interrupt, the program run on its command line, and the end of
 * the run.
 */
#include <stdio.h>

#include "board.h"
#include "rtscope/port.h"

/* One CPU makes affinity exact: every thread is pinned to CPU 0, the only
 * one, which is what the benches that need it ask for (a CPU above 0 is
 * refused: port/common/one_cpu.c). Registering the port's entry again
 * changes nothing. */
unsigned board_caps(void (*soft_irq_entry)(void *arg))
{
    unsigned caps = RTS_CAP_AFFINITY | RTS_CAP_SYSINFO | RTS_CAP_TIMER_IRQ;
    if (board_soft_irq_register(soft_irq_entry, NULL) == RTS_OK)
        caps |= RTS_CAP_SOFT_IRQ;
    return caps;
}

const char *rts_time_clock_name(void) { return board_clock_name(); }

uint64_t rts_time_resolution_ns(void) { return board_clock_resolution_ns(); }

/* ------------------------------------------- console and diagnostics */

/* One call's bytes are not interleaved with another thread's: the
 * scheduler is held while the board writes them (interrupts still run). */
void rts_console_write(const char *text, size_t n)
{
    port_sched_hold();
    board_console_write(text, n);
    port_sched_release();
}

void rts_diag_write(const char *text, size_t n)
{
    port_sched_hold();
    board_diag_write(text, n);
    port_sched_release();
}

/* ------------------------------------------------------- result output */

/* The board has one result channel: one sink at a time. */
struct rts_sink {
    bool failed;
};

static rts_sink the_sink;
static bool sink_open;

rts_status rts_sink_open(rts_sink **out, const char *dest, char *why, size_t whysize)
{
    *out = NULL;
    if (sink_open) {
        snprintf(why, whysize, "the board's result channel is in use");
        return RTS_EFAIL;
    }
    if (board_result_open(dest, why, whysize) != 0)
        return RTS_EFAIL;
    sink_open = true;
    the_sink.failed = false;
    *out = &the_sink;
    return RTS_OK;
}

rts_status rts_sink_write(rts_sink *s, const void *data, size_t n)
{
    if (!s->failed && board_result_write(data, n) != 0)
        s->failed = true;
    return s->failed ? RTS_EFAIL : RTS_OK;
}

rts_status rts_sink_commit(rts_sink *s, char *why, size_t whysize)
{
    sink_open = false;
    if (s->failed) {
        board_result_abort();
        snprintf(why, whysize, "the board's result channel failed while the result was written");
        return RTS_EFAIL;
    }
    return board_result_commit(why, whysize) == 0 ? RTS_OK : RTS_EFAIL;
}

void rts_sink_abort(rts_sink *s)
{
    (void)s;
    sink_open = false;
    board_result_abort();
}

/* ------------------------------------------------------- timer interrupt */

/* The handler only records (port.h): the board calls it directly. */
rts_status rts_timer_irq_start(uint64_t first_ns, uint64_t period_ns,
                               void (*handler)(void *arg, uint64_t planned_ns, uint64_t entered_ns), void *arg)
{
    return board_timer_irq_start(first_ns, period_ns, handler, arg);
}

rts_status rts_timer_irq_stop(uint64_t *missed_expiries) { return board_timer_irq_stop(missed_expiries); }

/* -------------------------------------------------------------- process */

/* The probe's main (src/main.c, renamed by the port's port.mk), or a C test's. */
int rts_app_main(int argc, char **argv);

_Noreturn void board_run_program(void)
{
    char **argv;
    int argc = board_args(&argv);
    board_exit(rts_app_main(argc, argv));
}

_Noreturn void rts_process_end(int status) { board_exit(status); }

/* Nobody can ask a board to stop but by ending it. */
rts_status rts_stop_requests_catch(void) { return RTS_ENOTSUP; }

bool rts_stop_requested(void) { return false; }

/* No real-time clock: the time since the board started, from 1970 (the
 * analyzer knows when it ran; and reruns under instruction counting stay
 * identical). */
void rts_wallclock(int64_t *sec, long *nsec)
{
    uint64_t now = board_time_ns();
    *sec = (int64_t)(now / 1000000000u);
    *nsec = (long)(now % 1000000000u);
}

void rts_random_bytes(void *buf, size_t n) { board_random_bytes(buf, n); }

void board_xorshift_bytes(uint32_t *state, void *buf, size_t n)
{
    uint8_t *bytes = buf;
    for (size_t i = 0; i < n; i++) {
        *state ^= *state << 13;
        *state ^= *state >> 17;
        *state ^= *state << 5;
        bytes[i] = (uint8_t)*state;
    }
}
