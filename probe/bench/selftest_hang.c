/*
 * selftest.hang — the watchdog's self-test: a thread records clock reads for
 * a moment, then hangs on purpose, either blocked on a semaphore nobody
 * gives or spinning without looking at the stop flag. The bench must end
 * failed by the watchdog, its samples kept, and no thread left behind.
 */
#include "bench_util.h"

#define SAMPLES_BEFORE_HANGING 1000

typedef struct {
    const rts_timing *timing;
    rts_metric *m;
    rts_sem *never_given;
    bool spin;
    bench_counter spins;
} hang_state;

static void hanger(void *p)
{
    hang_state *s = p;
    for (int i = 0; i < SAMPLES_BEFORE_HANGING; i++) {
        uint64_t a = rts_stamp(s->timing);
        uint64_t b = rts_stamp(s->timing);
        rts_metric_add(s->m, (double)(b - a));
    }
    if (s->spin)
        for (;;) /* bounded only by the watchdog, which is what this tests */
            atomic_fetch_add_explicit(&s->spins, 1, memory_order_relaxed);
    rts_sem_take(s->never_given, RTS_FOREVER);
}

static int run(rts_ctx *ctx)
{
    hang_state s = { .timing = rts_ctx_timing(ctx), .spin = rts_ctx_param(ctx, "spin") != 0.0 };
    s.m = bench_stamp_metric(ctx, "selftest.hang", "one timestamp pair, read before the bench hangs on purpose");
    if (!s.m)
        return 1;
    if (rts_sem_create(&s.never_given, 0, 1) != RTS_OK) {
        rts_ctx_fail(ctx, "cannot create a semaphore");
        return 1;
    }
    bench_run_measurer(ctx, "hanger", rts_ctx_cpu(ctx, -1), 0, hanger, &s, s.m);
    /* Reached only if the thread did not hang: then the self-test failed. */
    rts_ctx_fail(ctx, "the hanging thread returned");
    return 1;
}

static const rts_param_decl params[] = {
    RTS_PARAM_CPU("not pinned"),
    { "spin", "0", 0, 1, true, "0: hang blocked on a semaphore; 1: hang spinning, ignoring the stop flag" },
};

static const char *const metrics[] = { "selftest.hang", NULL };

RTS_BENCH_DEFINE(rts_bench_selftest_hang) = {
    .id = "selftest.hang",
    .summary = "self-test of the watchdog: hangs on purpose after 1000 samples (the run fails; nothing is left running)",
    .metrics = metrics,
    .params = params,
    .nparams = sizeof params / sizeof params[0],
    .run = run,
};
