/*
 * RT throttling in the figures (Linux; an RTOS's builds take
 * throttle_none.c): while the kernel may stop the run's real-time threads
 * for a stretch of every period, each time metric notes its samples long
 * enough to hold such a stretch, and the run judges the notes when the
 * bench ends (rtscope/bench.h's rts_throttle_notes).
 */
#include "context.h"
#include "metrics.h"
#include "rtsetup.h"

/* Whether the kernel may stop the run's real-time threads for a stretch of
 * every period (RT throttling not lifted, or the fair server of newer
 * kernels): the period and the longest stop. */
static bool throttling(const rts_ctx *ctx, uint64_t *period_ns, uint64_t *stop_ns)
{
    const rts_sysinfo *sys = &ctx->run->sys;
    const rts_rtconfig *granted = &ctx->run->granted;
    if (granted->policy == RTS_POLICY_OTHER)
        return false;
    if (!granted->rt_throttling_off && sys->rt_runtime_us >= 0 && sys->rt_runtime_us < sys->rt_period_us) {
        *period_ns = (uint64_t)sys->rt_period_us * 1000u;
        *stop_ns = (uint64_t)(sys->rt_period_us - sys->rt_runtime_us) * 1000u;
        return true;
    }
    if (sys->fair_period_us > 0 && sys->fair_runtime_us > 0 && sys->fair_runtime_us < sys->fair_period_us) {
        *period_ns = (uint64_t)sys->fair_period_us * 1000u;
        *stop_ns = (uint64_t)sys->fair_runtime_us * 1000u;
        return true;
    }
    return false;
}

void rts_ctx_watch_throttling(rts_ctx *ctx, rts_metric *m)
{
    uint64_t period_ns, stop_ns;
    if (throttling(ctx, &period_ns, &stop_ns) && !rts_metric_watch_throttling(m, period_ns, stop_ns))
        rts_ctx_warn(ctx, "out of memory for the throttle notes of metric %s: RT throttling is not detected", m->id);
}

/* The slack of a throttled stretch's length over the stop and of its
 * spacing: the thread resumes after the kernel's reschedule (a tick
 * without high-resolution timers: 4 ms at HZ=250). */
#define THROTTLE_SLACK_NS 5000000u

bool rts_metric_watch_throttling(rts_metric *m, uint64_t period_ns, uint64_t stop_ns)
{
    rts_throttle_notes *t = rts_heap_calloc(1, sizeof *t);
    if (!t)
        return false;
    t->origin_ns = rts_time_ns();
    t->period_ns = period_ns;
    t->stop_ns = stop_ns;
    /* A stretch cut short (the threads were busy only late in the period)
     * still lasts a good part of the stop; shorter samples are not noted. */
    t->min_ns = stop_ns / 5 > 2000000u ? stop_ns / 5 : 2000000u;
    rts_heap_free(m->throttle);
    m->throttle = t;
    return true;
}

void rts_metric_note_throttling(rts_metric *m, double v)
{
    rts_throttle_notes *t = m->throttle;
    if (t->n >= RTS_THROTTLE_NOTES) {
        t->missed++;
        return;
    }
    t->end_ns[t->n] = rts_time_ns();
    t->len_ns[t->n] = (uint64_t)v;
    t->n++;
}

/* Whether note i is no longer than a throttled stop. */
static bool fits(const rts_throttle_notes *t, unsigned i)
{
    return t->len_ns[i] <= t->stop_ns + THROTTLE_SLACK_NS;
}

/* Whether note i comes as throttling does, at most once a period: every
 * other note that fits ends with it (the same stretch) or a period's
 * worth of running apart. The stretches of classic RT throttling end on
 * the beat of its period timer; the fair server of newer kernels (the
 * same 50 ms a second by default, for normal tasks that wait) defers its
 * stretch within the period, so only the spacing is kept. */
static bool shaped(const rts_throttle_notes *t, unsigned i)
{
    uint64_t spacing = t->period_ns - 2u * t->stop_ns - THROTTLE_SLACK_NS;
    for (unsigned k = 0; k < t->n; k++) {
        if (k == i || !fits(t, k))
            continue;
        uint64_t apart = t->end_ns[i] > t->end_ns[k] ? t->end_ns[i] - t->end_ns[k] : t->end_ns[k] - t->end_ns[i];
        if (apart > THROTTLE_SLACK_NS && apart < spacing)
            return false;
    }
    return true;
}

void rts_metric_judge_throttling(rts_metric *m)
{
    rts_throttle_notes *t = m->throttle;
    if (!t)
        return;
    t->samples = t->longest_ns = 0;
    t->nat = 0;
    for (unsigned i = 0; i < t->n; i++) {
        if (!fits(t, i) || !shaped(t, i))
            continue;
        t->samples++;
        t->longest_ns = t->len_ns[i] > t->longest_ns ? t->len_ns[i] : t->longest_ns;
        if (t->nat < sizeof t->at_s / sizeof t->at_s[0])
            t->at_s[t->nat++] = (double)(t->end_ns[i] - t->origin_ns) / 1e9;
    }
    if (t->samples)
        rts_metric_invalidate(m,
                              "throttled: RT throttling stopped the measuring threads across %llu sample%s "
                              "(up to %.1f ms; the kernel stops real-time threads for %.0f ms of every %.0f ms)",
                              (unsigned long long)t->samples, t->samples == 1 ? "" : "s", (double)t->longest_ns / 1e6,
                              (double)t->stop_ns / 1e6, (double)t->period_ns / 1e6);
}

void rts_metric_merge_throttling(rts_metric *m, const rts_metric *src)
{
    rts_throttle_notes *t = m->throttle;
    for (unsigned i = 0; i < src->throttle->n; i++) {
        if (t->n >= RTS_THROTTLE_NOTES) {
            t->missed++;
            continue;
        }
        t->end_ns[t->n] = src->throttle->end_ns[i];
        t->len_ns[t->n++] = src->throttle->len_ns[i];
    }
}

/* Said once for the run; each metric finds out whether it was stopped. */
void rts_warn_rt_throttling(const rts_sysinfo *sys, const rts_rtconfig *granted, rts_warnings *warnings)
{
    if (granted->rt_throttling_off && sys->fair_period_us > 0 && sys->fair_runtime_us > 0)
        rts_warn(warnings, "RT throttling lifted, but this kernel's fair server still gives waiting normal tasks "
                          "%lld of every %lld us over real-time threads (debugfs sched/fair_server): samples it "
                          "stops are still flagged",
                 sys->fair_runtime_us, sys->fair_period_us);
    if (sys->rt_runtime_us >= 0 && granted->policy != RTS_POLICY_OTHER && !granted->rt_throttling_off &&
        sys->rt_period_us > 0 && sys->rt_runtime_us < sys->rt_period_us)
        rts_warn(warnings, "RT throttling is on (%lld of %lld us): a real-time thread that keeps a CPU busy "
                          "is stopped for the rest of each period (--rt-throttling off lifts it for the run)",
                 sys->rt_runtime_us, sys->rt_period_us);
}
