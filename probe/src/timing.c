/* Timestamp calibration (see rtscope/timing.h). */
#include "rtscope/timing.h"

#include "rtscope/config.h"
#include "rtscope/port.h"
#include "rtscope/stats.h"

#define RATIO_ROUNDS 5
#define RATIO_SPAN_NS 20000000u /* 20 ms per round */

/* Median back-to-back delta of a reader: the cost of one read. */
static double median_read_cost(uint64_t (*read)(void))
{
    uint64_t *d = rts_heap_calloc(RTS_CALIBRATION_PAIRS, sizeof *d);
    if (!d)
        return 0.0;
    for (int i = 0; i < 1000; i++) /* warm caches and the vDSO page */
        (void)read();
    for (size_t i = 0; i < RTS_CALIBRATION_PAIRS; i++) {
        uint64_t a = read();
        uint64_t b = read();
        d[i] = b - a;
    }
    rts_sort_u64(d, RTS_CALIBRATION_PAIRS);
    double median = (double)d[RTS_CALIBRATION_PAIRS / 2];
    rts_heap_free(d);
    return median;
}

static uint64_t read_clock(void) { return rts_time_ns(); }
static uint64_t read_cycles(void) { return rts_cycles(); }

/* Cycles per ns over several short spans; the median resists a VM pause.
 * The ratios are sorted in fixed point, 2^-32 a step (a 20 ms span holds
 * far fewer than 2^32 cycles, so none overflows). */
static double measure_cycles_per_ns(void)
{
    uint64_t ratio[RATIO_ROUNDS];
    for (int r = 0; r < RATIO_ROUNDS; r++) {
        uint64_t t0 = rts_time_ns(), c0 = rts_cycles();
        rts_sleep_ns(RATIO_SPAN_NS);
        uint64_t c1 = rts_cycles(), t1 = rts_time_ns();
        ratio[r] = ((c1 - c0) << 32) / (t1 - t0);
    }
    rts_sort_u64(ratio, RATIO_ROUNDS);
    return (double)ratio[RATIO_ROUNDS / 2] / 4294967296.0;
}

void rts_timing_calibrate(rts_timing *t, bool allow_cycles)
{
    t->clock_resolution_ns = rts_time_resolution_ns();
    t->sleep_granularity_ns = rts_sleep_granularity_ns();
    t->clock_overhead_ns = median_read_cost(read_clock);
    t->use_cycles = allow_cycles && RTS_CYCLE_COUNTER_NAME != NULL && (rts_port_caps() & RTS_CAP_CYCLE_COUNTER);
    t->cycle_counter = NULL;
    t->cycle_counter_kind = NULL;
    t->cycle_counter_hz = 0;
    t->cycles_per_ns = 0.0;
    t->cycle_overhead_cycles = 0.0;
    if (!t->use_cycles)
        return;
    t->cycles_per_ns = measure_cycles_per_ns();
    if (!(t->cycles_per_ns > 0.0)) { /* a counter that does not count */
        t->use_cycles = false;
        t->cycles_per_ns = 0.0;
        return;
    }
    t->cycle_counter = RTS_CYCLE_COUNTER_NAME;
    t->cycle_counter_kind = RTS_CYCLE_COUNTER_KIND;
    t->cycle_counter_hz = rts_cycles_hz();
    t->cycle_overhead_cycles = median_read_cost(read_cycles);
}

double rts_stamp_overhead_ns(const rts_timing *t)
{
    return t->use_cycles ? t->cycle_overhead_cycles / t->cycles_per_ns : t->clock_overhead_ns;
}
