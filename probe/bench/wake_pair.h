/*
 * A timed wake-up between two threads on one CPU, shared by sem.wake,
 * msgq.wake and mutex.handoff: the waker stamps and wakes (gives, sends,
 * unlocks) a waiter that is blocked; the waiter stamps first thing when its
 * wait returns. The waiter runs one priority above the waker, so under a
 * priority policy the wake preempts straight to it (at the granted
 * priority, or one below it for the waker when the granted one is the
 * highest).
 *
 * Round k:
 *   waker:  prepare (e.g. lock the mutex); release the waiter into round k
 *   waiter: announce round k; wait (blocks); stamp; after (e.g. unlock,
 *           verify); answer round k
 *   waker:  once the waiter announced, stamp, wake, stamp; await the answer
 *
 * Under a priority policy the release preempts to the waiter, which
 * announces and blocks before the waker runs on. Under other policies the
 * waker yields until the announcement: on one CPU the waiter is then
 * blocked, or (rarely) preempted just before blocking. The waiter counts
 * its context switches across the wait; a sample is recorded only when it
 * was switched out, returned after the wake stamp, and both threads were
 * on the CPU. Every wait is bounded except a mutex lock (the port has no
 * timed lock): the waker always unlocks, even when a round fails.
 *
 * A bench may trace its spikes (lat.preempt: spike_trace.h): it sets
 * tracer after wake_pair_start; a recorded sample over the metric's
 * threshold then keeps the kernel's trace from the wake to the waiter's
 * stamp. The waker keeps it, after it judged the round, on the pair's CPU;
 * the round after a kept trace is not recorded (trace_skipped).
 */
#ifndef RTSCOPE_WAKE_PAIR_H
#define RTSCOPE_WAKE_PAIR_H

#include "bench_util.h"

/* What a bench's wake is made of. Each returns false on failure. */
typedef struct {
    bool (*prepare)(void *obj);               /* waker, before releasing the waiter; may be NULL */
    bool (*wake)(void *obj, uint64_t round);  /* waker: the timed wake */
    bool (*wait)(void *obj, uint64_t round);  /* waiter: block until woken */
    bool (*after)(void *obj, uint64_t round); /* waiter, after its stamp; may be NULL */
} wake_ops;

/* The wake of a semaphore (obj: an rts_sem holding no token): give / take. */
extern const wake_ops wake_pair_sem_ops;

typedef struct {
    rts_ctx *ctx;
    rts_metric *m;
    const wake_ops *ops;
    void *obj;
    int cpu;
    int waker_offset;   /* priority offset to start the waker with (rts_ctx_spawn) */
    rts_sem *go;
    rts_thread *waiter;
    spike_tracer *tracer; /* NULL: no trace (the default) */
    bool after_trace;     /* the last round kept a trace: the next is not recorded */
    bench_counter armed, answered; /* last round announced / answered by the waiter */
    _Atomic bool quit;
    /* the waiter's answer, published by answered */
    uint64_t woken_stamp;
    bool switched, wait_ok, waiter_on_cpu;
    bool waiter_timed_out;
    uint64_t rounds, not_blocked, early, off_cpu, preempted, trace_skipped; /* counts of rounds */
} wake_pair;

/* Create the pair's state and start the waiter on cpu, one priority above
 * where the waker must then be started: at w->waker_offset. m receives the
 * samples. False after rts_ctx_fail (nothing is left running). On success
 * wake_pair_finish must follow. */
bool wake_pair_start(wake_pair *w, rts_ctx *ctx, rts_metric *m, const wake_ops *ops, void *obj, int cpu);

/* One timed wake, called by the waker (one thread, on the pair's CPU);
 * the sample goes to m when record is true and the round checks out.
 * False when the pair cannot go on (m is then invalid). */
bool wake_pair_round(wake_pair *w, bool record);

/* Release and join the waiter, record the pair's checks on m, free the state. */
void wake_pair_finish(wake_pair *w);

#endif
