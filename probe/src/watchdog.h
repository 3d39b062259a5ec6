/*
 * The watchdog: a thread above every measuring thread that holds the bench
 * being run to its planned end, and gives up on it when it does not stop
 * within a grace period of being asked to (hung, or not looking at its stop
 * flag). A stuck thread cannot be stopped from outside, so giving up means
 * ending the process, after saving what was measured: on_hang does that.
 */
#ifndef RTSCOPE_WATCHDOG_H
#define RTSCOPE_WATCHDOG_H

#include <stdatomic.h>

#include "rtscope/bench.h"

/* Called on the watchdog thread for the bench of ctx, asked to stop late_s
 * seconds of running ago, and held_s more during which the process did not
 * run at all (now_ns on the monotonic clock). Must end the process. */
typedef void (*rts_hang_fn)(void *arg, rts_ctx *ctx, double late_s, double held_s, uint64_t now_ns);

typedef struct {
    rts_thread *thread;       /* NULL: not running */
    rts_mutex *lock;          /* guards ctx and the times: the watchdog never
                               * touches a context after it was released */
    rts_ctx *ctx;             /* the bench running now, or NULL */
    uint64_t planned_end_ns;  /* when it should stop measuring */
    bool stop_seen;           /* it was seen asked to stop, at stop_seen_ns */
    uint64_t stop_seen_ns;
    uint64_t last_look_ns;    /* the watchdog's previous look */
    uint64_t waited_ns;       /* of the time since stop_seen_ns, what counts
                               * towards the grace: not the stalls */
    uint64_t grace_ns;
    rts_hang_fn on_hang;
    void *arg;
    _Atomic bool quit;
    rts_sem *wake;            /* given when there is something new to look at */
    bool quiet;               /* sleeps through a bench's measuring (rts_watchdog_start) */
} rts_watchdog;

/* Start the watchdog of w (zeroed) on any CPU, at policy and, for the
 * real-time policies, the top priority (99): above every measuring thread.
 * It looks at the watched bench every 50 ms, or with quiet (one CPU,
 * where each look preempts the measurement) only at its planned end and
 * once it was asked to stop. False when it could not start: then nothing
 * is watched, and rts_watchdog_watch, _release and _stop still may be
 * called. */
bool rts_watchdog_start(rts_watchdog *w, rts_policy policy, double grace_s, bool quiet, rts_hang_fn on_hang,
                        void *arg);

/* Watch the bench of ctx, which should be done at planned_end_ns. From
 * then on, or once the user asks the run to stop, the watchdog sets ctx's
 * stop flag itself (the supervising thread may be the one stuck); once ctx
 * was asked to stop, by anyone, grace_s ago and was not released, the
 * watchdog calls on_hang. The grace counts the time the watchdog saw pass
 * between its looks, not a stall of the whole process (a virtual machine
 * paused by its host for seconds, a SIGSTOP): a bench cannot stop while
 * nothing runs. One bench at a time. */
void rts_watchdog_watch(rts_watchdog *w, rts_ctx *ctx, uint64_t planned_end_ns);

/* The bench of ctx, still watched, now should be done at planned_end_ns
 * (its measuring window moved: rts_ctx_await_start, rts_ctx_started);
 * nothing when ctx is not the one watched. */
void rts_watchdog_move_end(rts_watchdog *w, const rts_ctx *ctx, uint64_t planned_end_ns);

/* The bench of ctx returned: the watchdog lets go of ctx. False when it
 * gave up on it first: on_hang is ending the process, and the caller must
 * not go on. */
bool rts_watchdog_release(rts_watchdog *w, rts_ctx *ctx);

/* Stop the watchdog and wait for its thread to end. */
void rts_watchdog_stop(rts_watchdog *w);

#endif
