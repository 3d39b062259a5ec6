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
    _Atomic uint64_t passes;
    uint32_t words[WORDS];
    bool verified;
} basic_state;

static void worker(void *p)
{
    tm_thread *th = p;
    basic_state *s = th->t->state;
    tm_thread_begin(th);
    /* All words start equal and get the same arithmetic, so one scalar
     * follows them: at the end every word must equal it, which proves the
     * passes really ran (were not optimised away or cut short). */
    uint32_t expected = 0;
    while (!rts_ctx_stopping(th->t->ctx)) {
        uint32_t c = (uint32_t)tm_read(&s->passes);
        for (unsigned i = 0; i < WORDS; i++)
            s->words[i] = (s->words[i] + c) ^ s->words[i];
        expected = (expected + c) ^ expected;
        tm_count(&s->passes);
    }
    s->verified = true;
    for (unsigned i = 0; i < WORDS; i++)
        s->verified = s->verified && s->words[i] == expected;
    tm_thread_end(th);
}

static int run(rts_ctx *ctx)
{
    basic_state s;
    memset(&s, 0, sizeof s);
    tm_test t = { 0 };
    if (!tm_init(&t, ctx, "tm.basic", "passes of fixed arithmetic over a 1024-word array per period "
                                      "(the calibration: no OS service)", &s))
        return 1;
    tm_add_counter(&t, &s.passes);
    tm_spawn(&t, "tm-basic", 0, worker);
    tm_measure(&t);
    rts_metric_check_bool(t.m, "work_verified", s.verified);
    if (!s.verified)
        rts_metric_invalidate(t.m, "the array does not hold what the counted passes compute");
    return 0;
}

static const rts_param_decl params[] = { TM_PARAMS };
static const char *const metrics[] = { "tm.basic", NULL };

const rts_bench rts_bench_tm_basic = {
    .id = "tm.basic",
    .summary = "Thread-Metric calibration: array arithmetic passes per period, no OS service",
    .metrics = metrics,
    .params = params,
    .nparams = sizeof params / sizeof params[0],
    .needs_caps = RTS_CAP_AFFINITY,
    .planned_s = tm_planned_s,
    .run = run,
};
