/*
 * tm.message — Thread-Metric's message processing test: one thread sends a
 * 16-byte message to a queue and receives it back, and checks that it
 * arrived intact. A period's count is the round trips made.
 */
#include "thread_metric.h"

#include <string.h>

#define WORDS 4 /* 16 bytes */

typedef struct {
    rts_queue *queue;
    uint32_t sent_count;
    uint64_t corrupted;
} message_state;

static bool round_trip(void *p)
{
    message_state *s = p;
    /* Different content each time, so a stale message cannot pass. */
    uint32_t sent[WORDS], received[WORDS];
    for (unsigned i = 0; i < WORDS; i++)
        sent[i] = s->sent_count * WORDS + i;
    s->sent_count++;
    if (rts_queue_send(s->queue, sent, 0) != RTS_OK || rts_queue_receive(s->queue, received, 0) != RTS_OK)
        return false;
    s->corrupted += memcmp(sent, received, sizeof sent) != 0;
    return true;
}

static int run(rts_ctx *ctx)
{
    message_state s = { .queue = NULL };
    tm_test t = { 0 };
    if (rts_queue_create(&s.queue, WORDS * sizeof(uint32_t), 8) != RTS_OK) {
        rts_ctx_fail(ctx, "cannot create a message queue");
        return 1;
    }
    if (tm_init(&t, ctx, "tm.message", "round trips per period of a 16-byte message through a queue "
                                       "(send, receive, content checked)", &s)) {
        tm_run_loop(&t, round_trip);
        rts_metric_check_int(t.m, "messages_corrupted", (long long)s.corrupted);
        rts_metric_check_bool(t.m, "queue_failed", t.op_failed);
        if (s.corrupted || t.op_failed)
            rts_metric_invalidate(t.m, "%llu messages arrived changed%s", (unsigned long long)s.corrupted,
                                  t.op_failed ? " and a queue call failed" : "");
    }
    rts_queue_destroy(s.queue);
    return t.m ? 0 : 1;
}

RTS_BENCH_DEFINE(rts_bench_tm_message) =
    TM_BENCH("tm.message", "Thread-Metric message processing: send and receive a 16-byte message, content checked", 0);
