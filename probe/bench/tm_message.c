/*
 * tm.message — Thread-Metric's message processing test: one thread sends a
 * 16-byte message to a queue and receives it back, and checks that it
 * arrived intact. A period's count is the round trips made.
 */
#include "thread_metric.h"

#include <string.h>

#define WORDS 4 /* 16 bytes */

typedef struct {
    _Atomic uint64_t round_trips;
    rts_queue *queue;
    uint64_t corrupted, queue_errors;
} message_state;

static void worker(void *p)
{
    tm_thread *th = p;
    message_state *s = th->t->state;
    tm_thread_begin(th);
    uint32_t sent[WORDS], received[WORDS];
    while (!rts_ctx_stopping(th->t->ctx)) {
        /* Different content each time, so a stale message cannot pass. */
        uint32_t n = (uint32_t)tm_read(&s->round_trips);
        for (unsigned i = 0; i < WORDS; i++)
            sent[i] = n * WORDS + i;
        if (rts_queue_send(s->queue, sent, 0) != RTS_OK || rts_queue_receive(s->queue, received, 0) != RTS_OK) {
            s->queue_errors++;
            break;
        }
        s->corrupted += memcmp(sent, received, sizeof sent) != 0;
        tm_count(&s->round_trips);
    }
    tm_thread_end(th);
}

static int run(rts_ctx *ctx)
{
    message_state s = { .corrupted = 0 };
    tm_test t = { 0 };
    if (!tm_init(&t, ctx, "tm.message", "round trips per period of a 16-byte message through a queue "
                                        "(send, receive, content checked)", &s))
        return 1;
    if (rts_queue_create(&s.queue, WORDS * sizeof(uint32_t), 8) != RTS_OK) {
        rts_ctx_fail(ctx, "cannot create a message queue");
        return 1;
    }
    tm_add_counter(&t, &s.round_trips);
    tm_spawn(&t, "tm-message", 0, worker);
    tm_measure(&t);
    rts_metric_check_int(t.m, "messages_corrupted", (long long)s.corrupted);
    rts_metric_check_int(t.m, "queue_errors", (long long)s.queue_errors);
    if (s.corrupted || s.queue_errors)
        rts_metric_invalidate(t.m, "%llu messages arrived changed and %llu queue calls failed",
                              (unsigned long long)s.corrupted, (unsigned long long)s.queue_errors);
    rts_queue_destroy(s.queue);
    return 0;
}

static const rts_param_decl params[] = { TM_PARAMS };
static const char *const metrics[] = { "tm.message", NULL };

const rts_bench rts_bench_tm_message = {
    .id = "tm.message",
    .summary = "Thread-Metric message processing: send and receive a 16-byte message, content checked",
    .metrics = metrics,
    .params = params,
    .nparams = sizeof params / sizeof params[0],
    .needs_caps = RTS_CAP_AFFINITY,
    .planned_s = tm_planned_s,
    .run = run,
};
