/* A timed wake-up between two threads on one CPU (see wake_pair.h). */
#include "wake_pair.h"

/* More rounds than this share without a blocked waiter and the samples
 * kept are a selection, not the distribution. */
#define MAX_NOT_BLOCKED_SHARE 0.01

static void waiter(void *p)
{
    wake_pair *w = p;
    const rts_timing *t = rts_ctx_timing(w->ctx);
    for (uint64_t k = 1;; k++) {
        /* 1. Wait to be released into round k (or told to quit). */
        if (rts_sem_take(w->go, BENCH_TIMEOUT_NS) != RTS_OK) {
            w->waiter_timed_out = true;
            return;
        }
        if (atomic_load(&w->quit))
            return;
        /* 2. Announce the wait, then wait: this blocks until the wake. */
        long long switches = rts_self_switches();
        atomic_store_explicit(&w->armed, k, memory_order_release);
        bool ok = w->ops->wait(w->obj, k);
        /* 3. First thing after the wait returns: the stamp. */
        uint64_t woken = rts_stamp(t);
        long long switched_to = rts_self_switches();
        w->waiter_on_cpu = rts_self_cpu() == w->cpu;
        /* 4. Finish the round (unlock, verify) and answer. */
        w->wait_ok = ok && (!w->ops->after || w->ops->after(w->obj, k));
        w->woken_stamp = woken;
        w->switched = switches < 0 || switched_to > switches;
        atomic_store_explicit(&w->answered, k, memory_order_release);
    }
}

bool wake_pair_start(wake_pair *w, rts_ctx *ctx, rts_metric *m, const wake_ops *ops, void *obj, int cpu)
{
    *w = (wake_pair){ .ctx = ctx, .m = m, .ops = ops, .obj = obj, .cpu = cpu };
    rts_thread_attr granted = rts_ctx_thread_attr(ctx, NULL, cpu, 0);
    rts_thread_attr above = rts_ctx_thread_attr(ctx, NULL, cpu, +1);
    w->waker_offset = above.priority > granted.priority || granted.policy == RTS_POLICY_OTHER ? 0 : -1;
    if (rts_sem_create(&w->go, 0, 1) != RTS_OK) {
        rts_ctx_fail(ctx, "cannot create a semaphore");
        return false;
    }
    w->waiter = rts_ctx_spawn(ctx, "wake-waiter", cpu, w->waker_offset + 1, waiter, w);
    if (!w->waiter) {
        rts_sem_destroy(w->go);
        return false;
    }
    return true;
}

/* Keep the trace of a recorded sample of ticks over the threshold, the wake
 * having been at t0_ns on the monotonic clock, the trace's. The sample's end
 * there is t0_ns plus its ticks in ns at the stamp's own calibration: off by
 * the clock read between t0_ns and the stamp (tens of ns) and the
 * calibration's error over the sample (well under 1 us for a sample of
 * milliseconds), both below the trace's 1 us resolution. The round after a
 * kept trace is not recorded: its waker and waiter run on caches and a
 * kernel the reading just churned (trace_skipped). */
static void trace_spike(wake_pair *w, uint64_t t0_ns, uint64_t ticks)
{
    uint64_t late_ns = (uint64_t)rts_ticks_to_ns(rts_ctx_timing(w->ctx), (double)ticks);
    w->after_trace = spike_trace_sample(w->tracer, w->m, t0_ns, t0_ns + late_ns);
}

/* Judge the waiter's answer to a wake stamped at t0 (t0_ns on the monotonic
 * clock when tracing) and returned from at t_after, and record it; false if
 * the round makes m invalid. */
static bool judge(wake_pair *w, uint64_t t0, uint64_t t0_ns, uint64_t t_after, bool waker_on_cpu, bool record)
{
    if (!w->wait_ok) {
        rts_metric_invalidate(w->m, "round %llu: the waiter's wait failed or it got the wrong content",
                              (unsigned long long)w->rounds);
        return false;
    }
    if (w->woken_stamp <= t0) {
        w->early++;
        rts_metric_invalidate(w->m, "round %llu: the waiter returned before the wake",
                              (unsigned long long)w->rounds);
        return false;
    }
    if (!waker_on_cpu || !w->waiter_on_cpu) {
        w->off_cpu++;
        rts_metric_invalidate(w->m, "a thread left CPU %d while measuring: not all on one CPU", w->cpu);
        return false;
    }
    if (!w->switched) {
        w->not_blocked++;
        return true;
    }
    if (record && w->after_trace) {
        w->after_trace = false;
        w->trace_skipped++;
    } else if (record) {
        w->preempted += w->woken_stamp < t_after;
        rts_metric_add(w->m, (double)(w->woken_stamp - t0));
        if (w->tracer)
            trace_spike(w, t0_ns, w->woken_stamp - t0);
    }
    return true;
}

bool wake_pair_round(wake_pair *w, bool record)
{
    const rts_timing *t = rts_ctx_timing(w->ctx);
    uint64_t k = ++w->rounds;
    /* 1. Prepare, and release the waiter into its wait. */
    if (w->ops->prepare && !w->ops->prepare(w->obj)) {
        rts_metric_invalidate(w->m, "round %llu: preparing the wake failed", (unsigned long long)k);
        return false;
    }
    rts_sem_give(w->go);
    /* 2. Let it block: it preempted us already under a priority policy. */
    bool armed = bench_await(&w->armed, k, BENCH_TIMEOUT_NS);
    bool waker_on_cpu = rts_self_cpu() == w->cpu;
    /* 3. Stamp, wake (also after a failure: nobody may stay blocked), stamp.
     * A tracing bench reads the trace's clock first, outside the sample. */
    uint64_t t0_ns = w->tracer ? rts_time_ns() : 0;
    uint64_t t0 = rts_stamp(t);
    bool woke = w->ops->wake(w->obj, k);
    uint64_t t_after = rts_stamp(t);
    if (!armed || !woke) {
        rts_metric_invalidate(w->m, "round %llu: %s", (unsigned long long)k,
                              armed ? "the wake failed" : "the waiter did not start waiting within 2 s");
        return false;
    }
    /* 4. Await the waiter's stamp, then judge and record the round. */
    if (!bench_await(&w->answered, k, BENCH_TIMEOUT_NS)) {
        rts_metric_invalidate(w->m, "round %llu: the waiter did not wake within 2 s", (unsigned long long)k);
        return false;
    }
    return judge(w, t0, t0_ns, t_after, waker_on_cpu, record);
}

static void record_checks(wake_pair *w)
{
    rts_metric *m = w->m;
    rts_metric_check_int(m, "rounds", (long long)w->rounds);
    rts_metric_check_int(m, "not_blocked", (long long)w->not_blocked);
    rts_metric_check_int(m, "woke_before_wake", (long long)w->early);
    rts_metric_check_int(m, "preempted_waker", (long long)w->preempted);
    rts_metric_check_bool(m, "same_cpu", w->off_cpu == 0);
    if (w->waiter_timed_out)
        rts_metric_invalidate(m, "the waiter waited over 2 s to be released into a round");
    if ((double)w->not_blocked > MAX_NOT_BLOCKED_SHARE * (double)w->rounds)
        rts_metric_invalidate(m, "the waiter was not blocked when woken in %llu of %llu rounds",
                              (unsigned long long)w->not_blocked, (unsigned long long)w->rounds);
}

void wake_pair_finish(wake_pair *w)
{
    atomic_store(&w->quit, true);
    rts_sem_give(w->go);
    rts_thread_join(w->waiter);
    record_checks(w);
    rts_sem_destroy(w->go);
}

static bool sem_give(void *obj, uint64_t round)
{
    (void)round;
    return rts_sem_give(obj) == RTS_OK;
}

static bool sem_take(void *obj, uint64_t round)
{
    (void)round;
    return rts_sem_take(obj, BENCH_TIMEOUT_NS) == RTS_OK;
}

const wake_ops wake_pair_sem_ops = { .wake = sem_give, .wait = sem_take };
