/*
 * thread.ops — the cost of a thread's life: thread.create is one
 * rts_thread_create on a stack allocated up front, thread.start the create
 * call's start to the new thread's first instruction, thread.join one join
 * of a thread that has finished. The new thread runs at the measuring
 * thread's policy and priority on its CPU, so under a priority policy it
 * runs only once the measuring thread yields, and then to its end; it only
 * stamps. Under other policies it may run inside the create call (counted,
 * and that creation is not timed), and the join may find it still exiting.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "bench_util.h"

#define DEFAULT_STACK_KIB 64u

/* POSIX wants a caller's stack suitably aligned; a cache line is plenty. */
#define STACK_ALIGN 64u
/* A creation in which the new thread ran before create returned (a
 * non-priority policy may let it) is not timed: create would include its
 * run. More often than this share, and the creations kept are a selection. */
#define MAX_RAN_DURING_CREATE_SHARE 0.1

typedef struct {
    rts_ctx *ctx;
    const rts_timing *timing;
    rts_metric *create, *start, *join;
    rts_thread_attr attr;       /* the new threads' attributes, stack included */
    void *stack_block;          /* the stack's allocation (attr.stack is inside it) */
    uint64_t warmup, count;
    bench_counter started;   /* new threads that have run */
    uint64_t first_stamp;       /* the last new thread's first stamp */
    uint64_t threads, ran_during_create;
} thread_state;

static void child(void *p)
{
    thread_state *s = p;
    /* 3. First instruction of the new thread: the stamp. */
    s->first_stamp = rts_stamp(s->timing);
    atomic_fetch_add_explicit(&s->started, 1, memory_order_release);
}

/* Record the life of a thread created between t0 and t1 and joined between t2 and t3. */
static void record(thread_state *s, bool ran_during_create, uint64_t t0, uint64_t t1, uint64_t t2, uint64_t t3)
{
    s->threads++;
    if (ran_during_create)
        s->ran_during_create++;
    else
        rts_metric_add(s->create, (double)(t1 - t0));
    rts_metric_add(s->start, (double)(s->first_stamp - t0));
    rts_metric_add(s->join, (double)(t3 - t2));
}

/* Create, run and join thread k; false when the bench cannot go on. */
static bool one_thread(thread_state *s, uint64_t k, bool measured)
{
    rts_thread *t;
    /* 1. Create: the new thread waits, at our priority on our CPU. */
    uint64_t t0 = rts_stamp(s->timing);
    rts_status st = rts_thread_create(&t, &s->attr, child, s);
    uint64_t t1 = rts_stamp(s->timing);
    if (st != RTS_OK) {
        rts_ctx_fail(s->ctx, "cannot create a thread on a %zu-byte stack: %s", s->attr.stack_size,
                     rts_status_str(st));
        return false;
    }
    bool ran_during_create = atomic_load_explicit(&s->started, memory_order_acquire) == k;
    /* 2. Yield until it has run: under a priority policy it runs to its end. */
    bool ran = bench_await(&s->started, k, BENCH_TIMEOUT_NS);
    /* 4. Join the finished thread. */
    uint64_t t2 = rts_stamp(s->timing);
    rts_thread_join(t);
    uint64_t t3 = rts_stamp(s->timing);
    if (!ran) {
        rts_metric_invalidate(s->start, "a new thread did not run within 2 s of its creation");
        return false;
    }
    if (measured)
        record(s, ran_during_create, t0, t1, t2, t3);
    return true;
}

static void measurer(void *p)
{
    thread_state *s = p;
    bool ok = true;
    for (uint64_t i = 0; ok && bench_more(s->ctx, i, s->warmup, s->count); i++)
        ok = one_thread(s, i + 1, i >= s->warmup);
    rts_ctx_stop(s->ctx);
}

static void record_checks(thread_state *s)
{
    rts_metric_check_int(s->create, "threads", (long long)s->threads);
    rts_metric_check_int(s->create, "ran_during_create", (long long)s->ran_during_create);
    rts_metric_check_int(s->start, "threads", (long long)s->threads);
    rts_metric_check_int(s->join, "threads", (long long)s->threads);
    if ((double)s->ran_during_create > MAX_RAN_DURING_CREATE_SHARE * (double)s->threads)
        rts_metric_invalidate(s->create, "the new thread ran before create returned in %llu of %llu creations: "
                                         "create included its run", (unsigned long long)s->ran_during_create,
                              (unsigned long long)s->threads);
}

/* The new threads' stack: stack_kib, or by default 64 KiB or the port's
 * least stack where that is larger (128 KiB with glibc on arm64), recorded
 * as the stack_kib measured with. */
static size_t stack_bytes(rts_ctx *ctx)
{
    size_t kib = (size_t)rts_ctx_param(ctx, "stack_kib");
    if (kib == 0) {
        size_t least_kib = (rts_thread_stack_min() + 1023u) / 1024u;
        kib = least_kib > DEFAULT_STACK_KIB ? least_kib : DEFAULT_STACK_KIB;
        rts_ctx_param_set(ctx, "stack_kib", (double)kib);
    }
    return kib * 1024u;
}

/* A stack_kib given must be one the platform takes (the runner's check, before anything runs). */
static bool params_ok(const rts_ctx *ctx, char *why, size_t whysize)
{
    size_t kib = (size_t)rts_ctx_param(ctx, "stack_kib"), least = rts_thread_stack_min();
    if (kib == 0 || kib * 1024u >= least)
        return true;
    snprintf(why, whysize, "stack_kib %zu is less than this platform's least thread stack, %zu KiB (0 takes it, or "
             "64 KiB where that is more)", kib, (least + 1023u) / 1024u);
    return false;
}

/* The metrics, and the new threads' attributes with a stack allocated,
 * aligned and touched now. */
static bool setup(thread_state *s, int cpu)
{
    s->create = bench_stamp_metric(s->ctx, "thread.create", "one thread creation on a stack allocated up front");
    s->start = s->create ? bench_stamp_metric(s->ctx, "thread.start", "a thread creation's call to the new "
                                              "thread's first instruction") : NULL;
    s->join = s->start ? bench_stamp_metric(s->ctx, "thread.join", "one join of a thread that has finished")
                       : NULL;
    if (!s->join)
        return false;
    s->attr = rts_ctx_thread_attr(s->ctx, "thread-new", cpu, 0);
    s->attr.stack_size = stack_bytes(s->ctx);
    s->stack_block = rts_heap_alloc(s->attr.stack_size + STACK_ALIGN);
    if (!s->stack_block) {
        rts_ctx_fail(s->ctx, "out of memory for a %zu-byte stack", s->attr.stack_size);
        return false;
    }
    uintptr_t aligned = ((uintptr_t)s->stack_block + STACK_ALIGN - 1) & ~(uintptr_t)(STACK_ALIGN - 1);
    s->attr.stack = (void *)aligned;
    memset(s->attr.stack, 0, s->attr.stack_size);
    return true;
}

static int run(rts_ctx *ctx)
{
    thread_state s = { .ctx = ctx, .timing = rts_ctx_timing(ctx),
                       .warmup = (uint64_t)rts_ctx_param(ctx, "warmup"),
                       .count = (uint64_t)rts_ctx_param(ctx, "count") };
    int cpu = rts_ctx_cpu(ctx, rts_ctx_last_allowed_cpu());
    if (!setup(&s, cpu))
        return 1;
    bool ran = bench_run_measurer(ctx, "thread-measure", cpu, 0, measurer, &s, s.create);
    record_checks(&s);
    rts_heap_free(s.stack_block);
    return ran ? 0 : 1;
}

static const rts_param_decl params[] = {
    BENCH_PARAM_COUNT,
    RTS_PARAM_CPU("the last CPU"),
    { "stack_kib", "0", 0, 8192, true,
      "stack of each new thread in KiB (allocated once, reused); 0: 64, or the platform's least if larger" },
    BENCH_PARAM_WARMUP("100"),
};

static const char *const metrics[] = { "thread.create", "thread.start", "thread.join", NULL };

RTS_BENCH_DEFINE(rts_bench_thread) = {
    .id = "thread.ops",
    .summary = "thread: one creation on a pre-allocated stack (thread.create), creation call to the new "
               "thread's first instruction (thread.start), one join of a finished thread (thread.join)",
    .metrics = metrics,
    .params = params,
    .nparams = sizeof params / sizeof params[0],
    .params_ok = params_ok,
    .run = run,
};
