/*
 * Sizes come from rtscope/config.h and yield to -D: the Makefile builds this
 * test (and the code it links) with overrides, TEST_CONFIG_FLAGS, and it
 * checks that the headers sized by them follow, and that what is not
 * overridden keeps its default.
 */
#include "capture.h"
#include "check.h"
#include "rtscope/bench.h"
#include "rtscope/json.h"
#include "rtscope/stats.h"

#define COUNT_OF(a) (sizeof(a) / sizeof((a)[0]))

static void test_overridden(void)
{
    CHECK(RTS_MAX_CPUS == 8, "RTS_MAX_CPUS %d", RTS_MAX_CPUS);
    CHECK(RTS_MAX_METRICS == 8 + 16, "RTS_MAX_METRICS follows RTS_MAX_CPUS: %d", RTS_MAX_METRICS);
    rts_metric m;
    CHECK(COUNT_OF(m.checks) == 3, "checks per metric %zu", COUNT_OF(m.checks));
    CHECK(COUNT_OF(m.labels) == 2 && RTS_MAX_LABELS == 2, "labels per metric %zu", COUNT_OF(m.labels));
    rts_sysinfo s;
    CHECK(sizeof s.kernel_version == 40, "kernel_version %zu bytes", sizeof s.kernel_version);
    CHECK(RTS_CALIBRATION_PAIRS == 101, "calibration pairs %d", RTS_CALIBRATION_PAIRS);
}

static void test_defaults_kept(void)
{
    CHECK(RTS_MAX_PARAMS == 16, "RTS_MAX_PARAMS %d", RTS_MAX_PARAMS);
    CHECK(RTS_MAX_RUN_BENCHES == 32, "RTS_MAX_RUN_BENCHES %d", RTS_MAX_RUN_BENCHES);
    CHECK(RTS_THREAD_STACK_BYTES == 256 * 1024, "RTS_THREAD_STACK_BYTES %d", RTS_THREAD_STACK_BYTES);
    rts_sysinfo s;
    CHECK(sizeof s.cmdline == 2048, "cmdline %zu bytes", sizeof s.cmdline);
}

/* A histogram of 4 sub-bucket bits up to 2^20: 16 exact values, then 16
 * buckets per power of two, and overflow from 2^20 on. */
static void test_small_histogram(void)
{
    CHECK(RTS_HIST_BUCKETS == 16 + (20 - 4) * 16, "buckets %u", (unsigned)RTS_HIST_BUCKETS);
    CHECK(RTS_HIST_LIMIT == 1u << 20, "limit %llu", (unsigned long long)RTS_HIST_LIMIT);
    rts_hist h;
    rts_hist_init(&h);
    for (uint64_t v = 0; v < 2000; v++)
        rts_hist_add(&h, v * 1000);
    CHECK(h.overflow == 2000 - 1049, "overflow %llu", (unsigned long long)h.overflow);
    CHECK(rts_hist_width(rts_hist_index(RTS_HIST_LIMIT - 1)) == 1u << 15, "top bucket width %llu",
          (unsigned long long)rts_hist_width(rts_hist_index(RTS_HIST_LIMIT - 1)));
}

/* Four levels of nesting, not five. */
static bool nest(int levels)
{
    capture c = { 0 };
    rts_json j;
    rts_json_init(&j, capture_write, &c);
    for (int i = 0; i < levels; i++)
        rts_json_array_begin(&j, NULL, true);
    for (int i = 0; i < levels; i++)
        rts_json_array_end(&j);
    bool whole = rts_json_finish(&j);
    capture_free(&c);
    return whole;
}

static void test_json_depth(void)
{
    CHECK(nest(4), "nesting of RTS_JSON_MAX_DEPTH");
    CHECK(!nest(5), "nesting beyond RTS_JSON_MAX_DEPTH (%d) fails", RTS_JSON_MAX_DEPTH);
}

int main(void)
{
    test_overridden();
    test_defaults_kept();
    test_small_histogram();
    test_json_depth();
    return check_report("test_config");
}
