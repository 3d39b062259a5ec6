/*
 * tm.basic — Thread-Metric's calibration test: one thread makes passes of
 * fixed arithmetic over a 1024-word array and counts them, using no OS
 * service at all. Every other tm.* test is read relative to it, which
 * cancels the processor's speed out of the comparison.
 *
 * The arithmetic is the suite's own, word for word: its array is volatile,
 * so each word is loaded twice, added to the pass count (loaded again for
 * each word, as the suite's counter is), xored and stored (the same C
 * compiles to the same instructions, whatever a cheaper equivalent would
 * cost).
 */
#include "thread_metric.h"

#define WORDS 1024

typedef struct {
    volatile uint32_t words[WORDS];
    bench_counter passes;
    /* All words start equal and get the same arithmetic, so one scalar
     * follows them: at the end every word must equal it, which proves the
     * passes really ran (were not optimised away or cut short). */
    uint32_t expected;
    uint32_t measured_passes; /* passes with their work, by the thread's own count */
} basic_state;

static inline void basic_loop(tm_thread *th, basic_state *s, bool work, unsigned phase)
{
    const tm_test *t = th->t;
    uint32_t made = 0;
    while (tm_in_phase(t, phase)) {
        if (work) {
            /* The pass count is read for each word, as the suite reads its
             * counter (a store to its array of the counter's type may
             * change it, so C reloads it after each). */
            uint32_t c = (uint32_t)bench_read(&s->passes);
            for (unsigned i = 0; i < WORDS; i++)
                s->words[i] = (s->words[i] + (uint32_t)bench_read(&s->passes)) ^ s->words[i];
            s->expected = (s->expected + c) ^ s->expected;
            made++;
        }
        bench_count(&s->passes);
    }
    s->measured_passes += made;
}

TM_ONE_THREAD(worker, basic_loop, basic_state)

static int run(rts_ctx *ctx)
{
    basic_state s = { .expected = 0 };
    tm_test t = { 0 };
    if (!tm_init(&t, ctx, "tm.basic", "passes of fixed arithmetic over a 1024-word array per period "
                                      "(the calibration: no OS service)", &s))
        return 1;
    tm_add_counter(&t, &s.passes, TM_COUNTED | TM_LOOP);
    tm_spawn(&t, "tm.basic", 0, worker);
    tm_measure(&t);
    bool verified = s.measured_passes > 0;
    for (unsigned i = 0; i < WORDS; i++)
        verified = verified && s.words[i] == s.expected;
    rts_metric_check_bool(t.m, "work_verified", verified);
    if (!verified)
        rts_metric_invalidate(t.m, "the array does not hold what the counted passes compute");
    return 0;
}

RTS_BENCH_DEFINE(rts_bench_tm_basic) =
    TM_BENCH("tm.basic", "Thread-Metric calibration: array arithmetic passes per period, no OS service", 0);
