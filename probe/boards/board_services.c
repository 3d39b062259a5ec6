/*
 * What every RTOS port on a board (board.h) gives the same way, whatever the
 * kernel, compiled with the port (its port.mk): the clock's name, the
 * console and diagnostics kept whole under the port's scheduler hold, the
 * board's one result channel as the port's sink, and the end of the run.
 */
#include <stdio.h>

#include "board.h"
#include "rtscope/port.h"

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

/* -------------------------------------------------------------- process */

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
