/*
 * Timestamps for measured paths, and their calibration.
 *
 * A bench takes stamps with rts_stamp(): the cycle counter where one is
 * usable (cheap, fine-grained), the monotonic clock otherwise. Ticks turn
 * into ns with the ratio measured against the monotonic clock at start.
 */
#ifndef RTSCOPE_TIMING_H
#define RTSCOPE_TIMING_H

#include <stdbool.h>
#include <stdint.h>

#include "port_time.h"
#include "rtscope/cycles.h"

typedef struct {
    uint64_t clock_resolution_ns;
    uint64_t sleep_granularity_ns; /* the port's declared tick of sleeps, 0: none */
    double clock_overhead_ns;      /* median back-to-back rts_time_ns delta */
    bool use_cycles;               /* stamps are cycle-counter ticks */
    const char *cycle_counter;     /* name, NULL if not used */
    const char *cycle_counter_kind; /* RTS_CYCLE_COUNTER_KIND, NULL if not used */
    uint64_t cycle_counter_hz;     /* the rate the hardware states; 0: none stated */
    double cycles_per_ns;          /* 0 when not used */
    double cycle_overhead_cycles;  /* median back-to-back rts_cycles delta */
} rts_timing;

/* Measure clock and (if allow_cycles and the port reports an invariant
 * counter) cycle-counter costs and the cycles-per-ns ratio. Takes ~0.1 s. */
void rts_timing_calibrate(rts_timing *t, bool allow_cycles);

/* One timestamp in the timing's ticks. */
static inline uint64_t rts_stamp(const rts_timing *t)
{
    return t->use_cycles ? rts_cycles() : rts_time_ns();
}

/* Ticks to ns. */
static inline double rts_ticks_to_ns(const rts_timing *t, double ticks)
{
    return t->use_cycles ? ticks / t->cycles_per_ns : ticks;
}

/* Cost of one stamp in ns (what a stamp-to-stamp delta contains). */
double rts_stamp_overhead_ns(const rts_timing *t);

#endif
