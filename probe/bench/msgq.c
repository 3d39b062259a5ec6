/*
 * msgq.ops — the cost of message-queue operations with 16-byte messages.
 * msgq.send / msgq.receive: one send into an empty queue and one receive
 * of that message, by one thread. msgq.wake: one send that wakes a blocked
 * higher-priority receiver, from just before the send to the receiver's
 * first instruction after its receive returns. The measuring thread
 * alternates the two, one of each per iteration, on one CPU. Every message
 * carries its sequence number and a pattern derived from it; the receiver
 * verifies both, and a message that arrives altered makes its metric
 * invalid.
 */
#include "wake_pair.h"

typedef struct {
    uint64_t seq;
    uint64_t pattern; /* pattern_of(seq) */
} message;

_Static_assert(sizeof(message) == 16, "the message is 16 bytes");

/* A queue and what its receiver saw. */
typedef struct {
    rts_queue *q;
    message got;
    uint64_t mismatches;
} channel;

typedef struct {
    rts_ctx *ctx;
    rts_metric *send, *receive, *wake;
    channel plain, wakeup;
    wake_pair pair;
    uint64_t warmup, count;
    uint64_t messages;
} msgq_state;

static uint64_t pattern_of(uint64_t seq) { return (seq * 0x9e3779b97f4a7c15u) ^ 0xa5a5a5a5a5a5a5a5u; }

static message message_of(uint64_t seq) { return (message){ .seq = seq, .pattern = pattern_of(seq) }; }

/* True if the channel received message seq intact; counts it otherwise. */
static bool verify(channel *c, uint64_t seq)
{
    bool intact = c->got.seq == seq && c->got.pattern == pattern_of(seq);
    c->mismatches += !intact;
    return intact;
}

static bool wake_send(void *obj, uint64_t round)
{
    message msg = message_of(round);
    return rts_queue_send(((channel *)obj)->q, &msg, 0) == RTS_OK;
}

static bool wait_receive(void *obj, uint64_t round)
{
    (void)round;
    channel *c = obj;
    return rts_queue_receive(c->q, &c->got, BENCH_TIMEOUT_NS) == RTS_OK;
}

static bool after_verify(void *obj, uint64_t round) { return verify(obj, round); }

static const wake_ops msgq_wake_ops = { .wake = wake_send, .wait = wait_receive, .after = after_verify };

/* One timed send and receive with no other thread involved; false when a
 * call failed or the message came back altered. */
static bool send_receive(msgq_state *s, uint64_t seq, bool record)
{
    const rts_timing *t = rts_ctx_timing(s->ctx);
    message msg = message_of(seq);
    /* 1. Stamp, send, stamp, receive, stamp: the middle stamp ends one
     *    sample and starts the other. Neither call may wait. */
    uint64_t t0 = rts_stamp(t);
    rts_status sent = rts_queue_send(s->plain.q, &msg, 0);
    uint64_t t1 = rts_stamp(t);
    rts_status received = rts_queue_receive(s->plain.q, &s->plain.got, 0);
    uint64_t t2 = rts_stamp(t);
    /* 2. Both calls worked and the message is intact, or the metrics are invalid. */
    const char *failed = sent != RTS_OK ? "its send failed" : received != RTS_OK ? "its receive failed"
                       : !verify(&s->plain, seq) ? "it came back altered" : NULL;
    if (failed) {
        rts_metric_invalidate(s->send, "message %llu: %s", (unsigned long long)seq, failed);
        rts_metric_invalidate(s->receive, "message %llu: %s", (unsigned long long)seq, failed);
        return false;
    }
    if (record) {
        s->messages++;
        rts_metric_add(s->send, (double)(t1 - t0));
        rts_metric_add(s->receive, (double)(t2 - t1));
    }
    return true;
}

static void measurer(void *p)
{
    msgq_state *s = p;
    bool ok = true;
    for (uint64_t i = 0; ok && bench_more(s->ctx, i, s->warmup, s->count); i++) {
        bool record = i >= s->warmup;
        ok = send_receive(s, i, record) && wake_pair_round(&s->pair, record);
    }
    rts_ctx_stop(s->ctx);
}

static void record_checks(msgq_state *s)
{
    rts_metric_check_int(s->send, "messages", (long long)s->messages);
    rts_metric_check_int(s->receive, "messages", (long long)s->messages);
    rts_metric_check_int(s->receive, "mismatches", (long long)s->plain.mismatches);
    rts_metric_check_int(s->wake, "mismatches", (long long)s->wakeup.mismatches);
}

/* Create the metrics and both queues (one slot each: never more is held). */
static bool setup(msgq_state *s)
{
    s->send = bench_stamp_metric(s->ctx, "msgq.send", "one send of a 16-byte message into an empty queue");
    s->receive = s->send ? bench_stamp_metric(s->ctx, "msgq.receive", "one receive of the 16-byte message "
                                              "waiting in a queue") : NULL;
    s->wake = s->receive ? bench_stamp_metric(s->ctx, "msgq.wake", "a send that wakes a blocked higher-"
                                              "priority receiver: send to the receiver's first instruction")
                         : NULL;
    if (!s->wake)
        return false;
    if (rts_queue_create(&s->plain.q, sizeof(message), 1) != RTS_OK ||
        rts_queue_create(&s->wakeup.q, sizeof(message), 1) != RTS_OK) {
        rts_ctx_fail(s->ctx, "cannot create message queues");
        rts_queue_destroy(s->plain.q);
        return false;
    }
    return true;
}

static int run(rts_ctx *ctx)
{
    msgq_state s = { .ctx = ctx, .warmup = (uint64_t)rts_ctx_param(ctx, "warmup"),
                     .count = (uint64_t)rts_ctx_param(ctx, "count") };
    int cpu = rts_ctx_cpu(ctx, rts_ctx_last_allowed_cpu());
    if (!setup(&s))
        return 1;
    bool started = wake_pair_start(&s.pair, ctx, s.wake, &msgq_wake_ops, &s.wakeup, cpu);
    bool ran = started && bench_run_measurer(ctx, "msgq-measure", cpu, s.pair.waker_offset, measurer, &s, s.wake);
    if (started)
        wake_pair_finish(&s.pair);
    record_checks(&s);
    rts_queue_destroy(s.plain.q);
    rts_queue_destroy(s.wakeup.q);
    return ran ? 0 : 1;
}

static const rts_param_decl params[] = {
    BENCH_PARAM_COUNT,
    RTS_PARAM_CPU("the last CPU"),
    BENCH_PARAM_WARMUP("1000"),
};

static const char *const metrics[] = { "msgq.send", "msgq.receive", "msgq.wake", NULL };

RTS_BENCH_DEFINE(rts_bench_msgq) = {
    .id = "msgq.ops",
    .summary = "message queue, 16-byte messages checked on receipt: one send and one receive by one thread "
               "(msgq.send, msgq.receive); one send that wakes a higher-priority receiver, to its first "
               "instruction (msgq.wake)",
    .metrics = metrics,
    .params = params,
    .nparams = sizeof params / sizeof params[0],
    .needs_caps = RTS_CAP_AFFINITY,
    .run = run,
};
