/* The watchdog (see watchdog.h). */
#include "watchdog.h"

#define WATCHDOG_TICK_NS 50000000u

/* A look this much later than the one before, when looks are a tick apart,
 * means nothing ran meanwhile, the watchdog included (it is above every
 * thread of the probe): a stall, of which one tick counts. */
#define WATCHDOG_STALL_NS (4 * WATCHDOG_TICK_NS)

/* The lock, where the watchdog has one (it has none when it did not start:
 * then only the supervising thread touches w). */
static void lock(rts_watchdog *w)
{
    if (w->lock)
        rts_mutex_lock(w->lock);
}

static void unlock(rts_watchdog *w)
{
    if (w->lock)
        rts_mutex_unlock(w->lock);
}

/* One look at the watched bench, under the lock: stop it at its planned end
 * or on the user's request (the supervising thread may be the one stuck),
 * note when it was first seen asked to stop, and take it when it overran
 * its grace, counted without the stalls (once asked to stop, the looks are
 * a tick apart). Returns the context taken, or NULL. */
static rts_ctx *look(rts_watchdog *w, uint64_t now, double *late_s, double *held_s)
{
    rts_ctx *ctx = w->ctx;
    uint64_t since_last = now - w->last_look_ns;
    w->last_look_ns = now;
    if (!ctx)
        return NULL;
    if (now >= w->planned_end_ns || rts_stop_requested())
        rts_ctx_stop(ctx);
    if (w->stop_seen)
        w->waited_ns += since_last < WATCHDOG_STALL_NS ? since_last : WATCHDOG_TICK_NS;
    else if (rts_ctx_stopping(ctx)) {
        w->stop_seen = true;
        w->stop_seen_ns = now;
        w->waited_ns = 0;
    }
    if (!w->stop_seen || w->waited_ns < w->grace_ns)
        return NULL;
    w->ctx = NULL;
    *late_s = (double)w->waited_ns / 1e9;
    *held_s = (double)(now - w->stop_seen_ns - w->waited_ns) / 1e9;
    return ctx;
}

/* How long to wait before the next look (a bench to watch, or the end,
 * wakes it sooner): a tick, or when quiet, while the watched bench
 * measures, through to its planned end. */
static uint64_t next_look_ns(rts_watchdog *w)
{
    if (!w->quiet)
        return WATCHDOG_TICK_NS;
    lock(w);
    uint64_t now = rts_time_ns(), end = w->planned_end_ns;
    bool measuring = w->ctx && !w->stop_seen && !rts_ctx_stopping(w->ctx) && now + WATCHDOG_TICK_NS < end;
    unlock(w);
    return measuring ? end - now : WATCHDOG_TICK_NS;
}

static void watchdog_main(void *arg)
{
    rts_watchdog *w = arg;
    while (!atomic_load(&w->quit)) {
        rts_sem_take(w->wake, next_look_ns(w));
        uint64_t now = rts_time_ns();
        double late_s = 0.0, held_s = 0.0;
        lock(w);
        rts_ctx *hung = look(w, now, &late_s, &held_s);
        unlock(w);
        if (hung) {
            w->on_hang(w->arg, hung, late_s, held_s, now);
            return;
        }
    }
}

bool rts_watchdog_start(rts_watchdog *w, rts_policy policy, double grace_s, bool quiet, rts_hang_fn on_hang,
                        void *arg)
{
    w->grace_ns = (uint64_t)(grace_s * 1e9);
    w->quiet = quiet;
    w->on_hang = on_hang;
    w->arg = arg;
    /* Inheriting where it can: the supervising thread holds the lock at a
     * normal priority, for a moment, while the watchdog waits at the top. */
    if (rts_mutex_create(&w->lock, (rts_port_caps() & RTS_CAP_PI_MUTEX) != 0) != RTS_OK) {
        w->lock = NULL;
        return false;
    }
    if (rts_sem_create(&w->wake, 0, 1) != RTS_OK) {
        rts_mutex_destroy(w->lock);
        w->lock = NULL;
        return false;
    }
    rts_thread_attr attr = {
        .name = "watchdog",
        .policy = policy,
        .priority = policy == RTS_POLICY_OTHER ? 0 : RTS_PRIORITY_MAX,
        .cpu = -1,
        .stack_size = RTS_THREAD_STACK_BYTES,
    };
    if (rts_thread_create(&w->thread, &attr, watchdog_main, w) == RTS_OK)
        return true;
    w->thread = NULL;
    rts_sem_destroy(w->wake);
    rts_mutex_destroy(w->lock);
    w->wake = NULL;
    w->lock = NULL;
    return false;
}

void rts_watchdog_watch(rts_watchdog *w, rts_ctx *ctx, uint64_t planned_end_ns)
{
    lock(w);
    w->ctx = ctx;
    w->planned_end_ns = planned_end_ns;
    w->stop_seen = false;
    unlock(w);
    if (w->wake)
        rts_sem_give(w->wake);
}

void rts_watchdog_move_end(rts_watchdog *w, const rts_ctx *ctx, uint64_t planned_end_ns)
{
    lock(w);
    bool mine = w->ctx == ctx;
    if (mine)
        w->planned_end_ns = planned_end_ns;
    unlock(w);
    if (mine && w->wake) /* a quiet watchdog sleeps until the end it knew */
        rts_sem_give(w->wake);
}

bool rts_watchdog_release(rts_watchdog *w, rts_ctx *ctx)
{
    lock(w);
    bool mine = w->ctx == ctx;
    if (mine)
        w->ctx = NULL;
    unlock(w);
    return mine;
}

void rts_watchdog_stop(rts_watchdog *w)
{
    if (!w->thread)
        return;
    atomic_store(&w->quit, true);
    rts_sem_give(w->wake);
    rts_thread_join(w->thread);
    rts_sem_destroy(w->wake);
    rts_mutex_destroy(w->lock);
    w->thread = NULL;
    w->wake = NULL;
    w->lock = NULL;
}
