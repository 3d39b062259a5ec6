/*
 * tm.basic — Thread-Metric's calibration test: one thread makes passes of
 * fixed arithmetic over a 1024-word array and counts them, using no OS
 * service at all. Every other tm.* test is read relative to it, which
 * cancels the processor's speed out of the comparison.
 */
#include "thread_metric.h"

#include <string.h>

#define WORDS 1024

typedef struct {
    uint32_t words[WORDS];
    uint32_t passes;
    /* All words start equal and get the same arithmetic, so one scalar
     * follows them: at the end every word must equal it, which proves the
     * passes really ran (were not optimised away or cut short). */
    uint32_t expected;
} basic_state;

static bool pass(void *p)
{
    basic_state *s = p;
    uint32_t c = s->passes++;
    for (unsigned i = 0; i < WORDS; i++)
        s->words[i] = (s->words[i] + c) ^ s->words[i];
    s->expected = (s->expected + c) ^ s->expected;
    return true;
}

static int run(rts_ctx *ctx)
{
    basic_state s;
    memset(&s, 0, sizeof s);
    tm_test t = { 0 };
    if (!tm_init(&t, ctx, "tm.basic", "passes of fixed arithmetic over a 1024-word array per period "
                                      "(the calibration: no OS service)", &s))
        return 1;
    tm_run_loop(&t, pass);
    bool verified = s.passes == (uint32_t)bench_read(&t.loops);
    for (unsigned i = 0; i < WORDS; i++)
        verified = verified && s.words[i] == s.expected;
    rts_metric_check_bool(t.m, "work_verified", verified);
    if (!verified)
        rts_metric_invalidate(t.m, "the array does not hold what the counted passes compute");
    return 0;
}

RTS_BENCH_DEFINE(rts_bench_tm_basic) =
    TM_BENCH("tm.basic", "Thread-Metric calibration: array arithmetic passes per period, no OS service", 0);
