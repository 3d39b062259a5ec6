/*
 * tm.message — Thread-Metric's message processing test: one thread sends a
 * 16-byte message to a queue and receives it back. As in the suite, the
 * loop compares the message's last word, which counts the messages, and
 * stops at a mismatch; the whole of the last message is compared once the
 * test has ended, outside the measured loop. A period's count is the round
 * trips made.
 */
#include "thread_metric.h"

#include <string.h>

#define WORDS 4 /* 16 bytes */

typedef struct {
    rts_queue *queue;
    bench_counter round_trips;
    uint32_t sent[WORDS], received[WORDS];
    bool failed, corrupted;
} message_state;

static inline void message_loop(tm_thread *th, message_state *s, bool work, unsigned phase)
{
    const tm_test *t = th->t;
    while (tm_in_phase(t, phase)) {
        if (work) {
            if (rts_queue_send(s->queue, s->sent, 0) != RTS_OK ||
                rts_queue_receive(s->queue, s->received, 0) != RTS_OK) {
                s->failed = true;
                break;
            }
            if (s->received[WORDS - 1] != s->sent[WORDS - 1]) {
                s->corrupted = true;
                break;
            }
            s->sent[WORDS - 1]++;
        }
        bench_count(&s->round_trips);
    }
}

TM_ONE_THREAD(worker, message_loop, message_state)

static int run(rts_ctx *ctx)
{
    message_state s = { .sent = { 0x11112222, 0x33334444, 0x55556666, 0 } };
    tm_test t = { 0 };
    if (rts_queue_create(&s.queue, sizeof s.sent, 8) != RTS_OK) {
        rts_ctx_fail(ctx, "cannot create a message queue");
        return 1;
    }
    if (tm_init(&t, ctx, "tm.message", "round trips per period of a 16-byte message through a queue "
                                       "(send, receive, content checked)", &s)) {
        tm_add_counter(&t, &s.round_trips, TM_COUNTED | TM_LOOP);
        tm_spawn(&t, "tm.message", 0, worker);
        tm_measure(&t);
        /* The last message sent and received: the one before the last word's increment. */
        uint32_t last[WORDS];
        memcpy(last, s.sent, sizeof last);
        last[WORDS - 1]--;
        s.corrupted = s.corrupted || (s.sent[WORDS - 1] && memcmp(last, s.received, sizeof last) != 0);
        rts_metric_check_bool(t.m, "message_intact", !s.corrupted);
        rts_metric_check_bool(t.m, "queue_failed", s.failed);
        if (s.corrupted || s.failed)
            rts_metric_invalidate(t.m, "%s", s.failed ? "a queue call failed" : "a message came back changed");
    }
    rts_queue_destroy(s.queue);
    return t.m ? 0 : 1;
}

RTS_BENCH_DEFINE(rts_bench_tm_message) =
    TM_BENCH("tm.message", "Thread-Metric message processing: send and receive a 16-byte message, content checked", 0);
