/* The watchdog (see watchdog.h). */
#include "watchdog.h"

#define WATCHDOG_TICK_NS 50000000u

/* The watched bench, once asked to stop (by the watchdog itself at its
 * planned end or on the user's request: the main thread may be the one
 * stuck), has overrun its grace: true when the watchdog takes it. */
static bool overran(rts_watchdog *w, rts_ctx *ctx, uint64_t now)
{
    if (now >= atomic_load(&w->planned_end_ns) || rts_stop_requested())
        rts_ctx_stop(ctx);
    uint64_t expected = 0;
    if (rts_ctx_stopping(ctx))
        atomic_compare_exchange_strong(&w->stop_seen_ns, &expected, now);
    uint64_t seen = atomic_load(&w->stop_seen_ns);
    if (seen == 0 || now - seen < w->grace_ns)
        return false;
    return atomic_compare_exchange_strong(&w->ctx, &ctx, NULL);
}

static void watchdog_main(void *arg)
{
    rts_watchdog *w = arg;
    while (!atomic_load(&w->quit)) {
        rts_sleep_ns(WATCHDOG_TICK_NS);
        rts_ctx *ctx = atomic_load(&w->ctx);
        uint64_t now = rts_time_ns();
        if (ctx && overran(w, ctx, now)) {
            w->on_hang(w->arg, ctx, (double)(now - atomic_load(&w->stop_seen_ns)) / 1e9, now);
            return;
        }
    }
}

bool rts_watchdog_start(rts_watchdog *w, rts_policy policy, double grace_s, rts_hang_fn on_hang, void *arg)
{
    w->grace_ns = (uint64_t)(grace_s * 1e9);
    w->on_hang = on_hang;
    w->arg = arg;
    rts_thread_attr attr = {
        .name = "watchdog",
        .policy = policy,
        .priority = policy == RTS_POLICY_OTHER ? 0 : 99,
        .cpu = -1,
        .stack_size = RTS_THREAD_STACK_BYTES,
    };
    if (rts_thread_create(&w->thread, &attr, watchdog_main, w) == RTS_OK)
        return true;
    w->thread = NULL;
    return false;
}

void rts_watchdog_watch(rts_watchdog *w, rts_ctx *ctx, uint64_t planned_end_ns)
{
    atomic_store(&w->planned_end_ns, planned_end_ns);
    atomic_store(&w->stop_seen_ns, 0);
    atomic_store(&w->ctx, ctx);
}

bool rts_watchdog_release(rts_watchdog *w, rts_ctx *ctx)
{
    rts_ctx *expected = ctx;
    return atomic_compare_exchange_strong(&w->ctx, &expected, NULL);
}

void rts_watchdog_stop(rts_watchdog *w)
{
    if (!w->thread)
        return;
    atomic_store(&w->quit, true);
    rts_thread_join(w->thread);
    w->thread = NULL;
}
