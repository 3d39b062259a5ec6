/* What the Thread-Metric tests share (see thread_metric.h). */
#include "thread_metric.h"

#include <math.h>

/* Allowance in the planned time for starting a test's threads. */
#define TM_START_S 1.0
/* The reporter runs above every thread of a test, as in Thread-Metric. */
#define TM_REPORTER_PRIO_OFFSET 10

const rts_param_decl tm_params[TM_NPARAMS] = {
    { "period", "30", 0.05, 3600, false, "reporting period in seconds (Thread-Metric: 30)" },
    { "periods", "3", 1, TM_MAX_PERIODS, true, "reporting periods to measure" },
    RTS_PARAM_CPU("the last CPU"),
};

/* How long the loops run without their work, to time the harness: long
 * enough for many passes, short beside the periods. */
static double calibration_s(double period_s) { return fmin(period_s / 10, 1.0); }

double tm_announced_s(const rts_ctx *ctx)
{
    double period_s = rts_ctx_param(ctx, "period");
    return calibration_s(period_s) + period_s * rts_ctx_param(ctx, "periods");
}

double tm_planned_s(const rts_ctx *ctx)
{
    double period_s = rts_ctx_param(ctx, "period");
    return calibration_s(period_s) + period_s * rts_ctx_param(ctx, "periods") + TM_START_S;
}

bool tm_init(tm_test *t, rts_ctx *ctx, const char *id, const char *description, void *state)
{
    t->ctx = ctx;
    t->state = state;
    atomic_store(&t->phase, TM_CALIBRATING);
    t->m = rts_ctx_count_metric(ctx, id, description, rts_ctx_param(ctx, "period"),
                                (uint64_t)rts_ctx_param(ctx, "periods"), TM_BASELINE);
    if (!t->m)
        return false;
    t->cpu = rts_ctx_cpu(ctx, rts_ctx_last_allowed_cpu());
    if (rts_sem_create(&t->stop_reporter, 0, 1) != RTS_OK) {
        rts_ctx_fail(ctx, "cannot create a semaphore");
        return false;
    }
    bool strict = rts_ctx_thread_attr(ctx, "", t->cpu, 0).policy != RTS_POLICY_OTHER;
    rts_metric_check_bool(t->m, "strict_priorities", strict);
    if (!strict)
        rts_metric_invalidate(t->m, "Thread-Metric needs strict priorities on one CPU and no real-time policy "
                                    "was granted: counts under a time-sharing policy are not comparable");
    return true;
}

void tm_add_counter(tm_test *t, bench_counter *counter, unsigned role)
{
    if (t->ncounters < TM_MAX_COUNTERS)
        t->counters[t->ncounters++] = (tm_counter){ .counter = counter, .role = role };
}

bool tm_spawn(tm_test *t, const char *name, int prio_offset, void (*fn)(void *))
{
    if (t->nthreads == TM_MAX_THREADS) {
        rts_ctx_fail(t->ctx, "too many Thread-Metric threads");
        return false;
    }
    tm_thread *th = &t->threads[t->nthreads];
    *th = (tm_thread){ .t = t, .index = t->nthreads };
    rts_thread *handle = rts_ctx_spawn(t->ctx, name, t->cpu, prio_offset, fn, th);
    if (!handle)
        return false;
    t->handles[t->nthreads++] = handle;
    return true;
}

void tm_thread_begin(tm_thread *th) { bench_watch_begin(&th->watch, th->t->cpu); }

void tm_thread_end(tm_thread *th) { bench_watch_end(&th->watch); }

/* The sum of the counters whose role includes role. */
static uint64_t sum_of(const tm_test *t, unsigned role)
{
    uint64_t sum = 0;
    for (unsigned i = 0; i < t->ncounters; i++)
        if (t->counters[i].role & role)
            sum += bench_read(t->counters[i].counter);
    return sum;
}

/* Note how far the farthest counter's gain since measuring began is from
 * their mean gain (the calibration left them wherever it left them). */
static void note_spread(tm_test *t)
{
    double gains[TM_MAX_COUNTERS], sum = 0;
    for (unsigned i = 0; i < t->ncounters; i++)
        sum += gains[i] = (double)bench_read(t->counters[i].counter) - (double)t->counters[i].start;
    double mean = sum / t->ncounters;
    for (unsigned i = 0; i < t->ncounters; i++)
        t->spread_max = fmax(t->spread_max, fabs(gains[i] - mean));
}

/* Sleep until when, never less; false when the run was stopped first. */
static bool wait_until(tm_test *t, uint64_t when)
{
    for (uint64_t now = rts_time_ns(); now < when; now = rts_time_ns())
        if (rts_sem_take(t->stop_reporter, when - now) == RTS_OK)
            return false;
    return true;
}

/* The loops' cost per pass without their work, timed over the calibration
 * while they run alone; then their work starts, and measuring begins a
 * hundredth of the calibration later, once every thread has left the
 * calibration's loop (a thread preempted there counts one more pass).
 * False when stopped. */
static bool time_the_harness(tm_test *t)
{
    uint64_t calibration_ns = (uint64_t)(calibration_s(t->m->period_s) * 1e9);
    uint64_t start = rts_time_ns(), passes = sum_of(t, TM_LOOP);
    if (!wait_until(t, start + calibration_ns))
        return false;
    uint64_t now = rts_time_ns();
    passes = sum_of(t, TM_LOOP) - passes;
    atomic_store(&t->phase, TM_MEASURING);
    if (passes)
        t->harness_ns_per_pass = (double)(now - start) / (double)passes;
    if (!wait_until(t, now + calibration_ns / 100))
        return false;
    for (unsigned i = 0; i < t->ncounters; i++)
        t->counters[i].start = bench_read(t->counters[i].counter);
    return true;
}

/* The reporting thread: the harness's calibration, then, as the suite's
 * reporter does (tm_thread_sleep(period) after each report), a period
 * measured from each reading to the next, each period's count as it was,
 * unscaled, and beside it the period's measured length: a reporter that
 * woke late makes that period longer, never the next one shorter. */
static void reporter(void *p)
{
    tm_test *t = p;
    uint64_t period_ns = (uint64_t)(t->m->period_s * 1e9);
    uint64_t periods = (uint64_t)rts_ctx_param(t->ctx, "periods");
    if (time_the_harness(t)) {
        uint64_t start = rts_time_ns(), last_time = start, last = sum_of(t, TM_COUNTED);
        uint64_t first_passes = sum_of(t, TM_LOOP);
        for (uint64_t k = 1; k <= periods; k++) {
            uint64_t planned = last_time + period_ns;
            if (!wait_until(t, planned))
                break; /* stopped early: a partial period is not a period */
            uint64_t now = rts_time_ns(), count = sum_of(t, TM_COUNTED);
            t->measured_passes = sum_of(t, TM_LOOP) - first_passes;
            if (t->ncounters > 1)
                note_spread(t);
            if (count < last)
                t->counter_went_back = true;
            if (now > planned && now - planned > t->late_max_ns)
                t->late_max_ns = now - planned;
            rts_metric_add_period(t->m, (double)(count - last), now - last_time);
            last = count;
            last_time = now;
        }
        t->measured_ns = last_time - start;
    }
    atomic_store(&t->phase, TM_STOPPED);
    rts_ctx_stop(t->ctx);
}

static void record_checks(tm_test *t)
{
    rts_metric *m = t->m;
    bool same_cpu = true;
    for (unsigned i = 0; i < t->nthreads; i++)
        same_cpu = same_cpu && t->threads[i].watch.stayed;
    rts_metric_check_int(m, "cpu", t->cpu);
    rts_metric_check_bool(m, "same_cpu", same_cpu);
    rts_metric_check_int(m, "reporter_late_max_us", (long long)(t->late_max_ns / 1000));
    rts_metric_check_bool(m, "counters_monotonic", !t->counter_went_back);
    /* What the harness took of the measured time: its loop's cost per pass
     * times the passes the threads made. */
    if (t->harness_ns_per_pass > 0 && t->measured_ns > 0) {
        rts_metric_check_double(m, "harness_ns_per_pass", t->harness_ns_per_pass);
        rts_metric_check_double(m, "harness_share",
                                t->harness_ns_per_pass * (double)t->measured_passes / (double)t->measured_ns);
    }
    if (!same_cpu)
        rts_metric_invalidate(m, "a thread left CPU %d while measuring: not all on one CPU", t->cpu);
    if (t->counter_went_back)
        rts_metric_invalidate(m, "a counter went backwards between periods: it overflowed or was overwritten");
    /* Threads that run in turn stay within one iteration of each other, but
     * for the reporter: each of its wake-ups preempts one of them, and a
     * kernel that then resumes the next thread of that priority rather than
     * the preempted one (FreeRTOS) costs that thread a turn. Linux resumes
     * the preempted one, so there the counters stay within one. */
    if (t->ncounters > 1) {
        double allowed = 1.0 + rts_ctx_param(t->ctx, "periods");
        rts_metric_check_double(m, "counters_spread_max", t->spread_max);
        if (t->spread_max > allowed)
            rts_metric_invalidate(m, "the test's %u counters drifted %.1f from their mean (at most %.0f when each "
                                     "thread runs in turn: 1, and 1 for each of the reporter's preemptions): the "
                                     "scheduling was not what the test needs",
                                  t->ncounters, t->spread_max, allowed);
    }
}

void tm_measure(tm_test *t)
{
    rts_thread *rep = rts_ctx_spawn(t->ctx, "tm-report", t->cpu, TM_REPORTER_PRIO_OFFSET, reporter, t);
    if (rep)
        rts_ctx_wait(t->ctx, t->m);
    else
        rts_ctx_stop(t->ctx);
    atomic_store(&t->phase, TM_STOPPED);
    rts_sem_give(t->stop_reporter);
    if (t->release)
        t->release(t);
    if (rep)
        rts_thread_join(rep);
    /* In creation order: a thread may still resume the next one until it ends. */
    for (unsigned i = 0; i < t->nthreads; i++)
        rts_thread_join(t->handles[i]);
    record_checks(t);
    rts_sem_destroy(t->stop_reporter);
}
