/* Calibration sanity: costs positive and small, ratio plausible, stamps monotonic. */
#include "check.h"
#include "rtscope/port.h"
#include "rtscope/timing.h"

static void test_calibration(void)
{
    rts_timing t;
    rts_timing_calibrate(&t, true);
    CHECK(t.clock_overhead_ns >= 0 && t.clock_overhead_ns < 100000, "clock read costs %.1f ns",
          t.clock_overhead_ns);
    CHECK(t.clock_resolution_ns <= 10000000, "clock resolution %llu ns", (unsigned long long)t.clock_resolution_ns);
    if (t.use_cycles) {
        /* 10 MHz (an arm64 generic timer) to 10 GHz. */
        CHECK(t.cycles_per_ns > 0.01 && t.cycles_per_ns < 10, "cycles per ns %.3f", t.cycles_per_ns);
        CHECK(t.cycle_counter != NULL, "counter named");
        /* A stamp-timed 2 ms sleep converts back to about 2 ms. */
        uint64_t a = rts_stamp(&t);
        rts_sleep_ns(2000000);
        double ns = rts_ticks_to_ns(&t, (double)(rts_stamp(&t) - a));
        CHECK(ns >= 1.9e6 && ns < 1e9, "2 ms sleep measured as %.0f ns", ns);
    }
    rts_timing_calibrate(&t, false);
    CHECK(!t.use_cycles && t.cycles_per_ns == 0 && t.cycle_counter == NULL, "cycle counter can be refused");
    CHECK(rts_stamp_overhead_ns(&t) == t.clock_overhead_ns, "stamp cost is the clock's without cycles");
}

static void test_monotonic(void)
{
    rts_timing t;
    rts_timing_calibrate(&t, true);
    uint64_t prev = rts_stamp(&t);
    int backwards = 0;
    for (int i = 0; i < 1000000; i++) {
        uint64_t now = rts_stamp(&t);
        backwards += now < prev;
        prev = now;
    }
    CHECK(backwards == 0, "%d stamps went backwards on one thread", backwards);
}

int main(void)
{
    test_calibration();
    test_monotonic();
    return check_report("test_timing");
}
