/*
 * heap.ops — the cost of the general-purpose heap: each round allocates a
 * batch of blocks of one size one call at a time (heap.malloc), writing
 * every byte of each block between the calls, then frees them one call at
 * a time in the same order (heap.free). The documented variants are
 * size=4 (default), 128 and 4096.
 */
#include <string.h>

#include "bench_util.h"

/* Most a round may hold at once, so that a large size × batch fails
 * plainly instead of swapping or waking the OOM killer. */
#define MAX_ROUND_BYTES (256u << 20)

typedef struct {
    rts_ctx *ctx;
    rts_metric *malloc_m, *free_m;
    void **blocks;
    size_t size;
    uint64_t batch, warmup, count;
    uint64_t rounds, nulls;
} heap_state;

/* Allocate blocks[0..n), operations first.. of the run, timing each call. */
static void alloc_batch(heap_state *s, uint64_t first, uint64_t n)
{
    const rts_timing *t = rts_ctx_timing(s->ctx);
    for (uint64_t j = 0; j < n; j++) {
        /* 1. One allocation between two stamps. */
        uint64_t t0 = rts_stamp(t);
        void *p = rts_heap_alloc(s->size);
        uint64_t t1 = rts_stamp(t);
        s->blocks[j] = p;
        if (!p) {
            s->nulls++;
            continue;
        }
        /* 2. Write every byte, untimed: the memory is really used. */
        memset(p, (int)(j & 0xff), s->size);
        if (first + j >= s->warmup)
            rts_metric_add(s->malloc_m, (double)(t1 - t0));
    }
}

/* Free blocks[0..n), timing each call. */
static void free_batch(heap_state *s, uint64_t first, uint64_t n)
{
    const rts_timing *t = rts_ctx_timing(s->ctx);
    for (uint64_t j = 0; j < n; j++) {
        if (!s->blocks[j])
            continue;
        /* 3. One free between two stamps. */
        uint64_t t0 = rts_stamp(t);
        rts_heap_free(s->blocks[j]);
        uint64_t t1 = rts_stamp(t);
        if (first + j >= s->warmup)
            rts_metric_add(s->free_m, (double)(t1 - t0));
    }
}

static void measurer(void *p)
{
    heap_state *s = p;
    for (uint64_t i = 0, n = 0; s->nulls == 0 && bench_more(s->ctx, i, s->warmup, s->count); i += n) {
        n = s->count && s->warmup + s->count - i < s->batch ? s->warmup + s->count - i : s->batch;
        alloc_batch(s, i, n);
        free_batch(s, i, n);
        s->rounds++;
    }
    rts_ctx_stop(s->ctx);
}

static void record_checks(heap_state *s)
{
    rts_metric_check_int(s->malloc_m, "rounds", (long long)s->rounds);
    rts_metric_check_int(s->malloc_m, "null_returns", (long long)s->nulls);
    rts_metric_check_int(s->free_m, "rounds", (long long)s->rounds);
    if (s->nulls)
        rts_metric_invalidate(s->malloc_m, "the heap returned NULL for %llu allocations of %zu bytes",
                              (unsigned long long)s->nulls, s->size);
}

static int run(rts_ctx *ctx)
{
    heap_state s = { .ctx = ctx, .size = (size_t)rts_ctx_param(ctx, "size"),
                     .batch = (uint64_t)rts_ctx_param(ctx, "batch"),
                     .warmup = (uint64_t)rts_ctx_param(ctx, "warmup"),
                     .count = (uint64_t)rts_ctx_param(ctx, "count") };
    int cpu = rts_ctx_cpu(ctx, rts_ctx_last_allowed_cpu());
    double round_bytes = (double)s.size * (double)s.batch;
    if (round_bytes > MAX_ROUND_BYTES) {
        rts_ctx_fail(ctx, "size × batch is %.0f bytes: at most %u may be held at once", round_bytes,
                     MAX_ROUND_BYTES);
        return 1;
    }
    s.malloc_m = bench_stamp_metric(ctx, "heap.malloc", "one allocation from the general-purpose heap");
    s.free_m = s.malloc_m ? bench_stamp_metric(ctx, "heap.free", "one free of a block the heap gave") : NULL;
    if (!s.free_m)
        return 1;
    s.blocks = rts_heap_alloc(s.batch * sizeof *s.blocks);
    if (!s.blocks) {
        rts_ctx_fail(ctx, "out of memory for %llu block pointers", (unsigned long long)s.batch);
        return 1;
    }
    memset(s.blocks, 0, s.batch * sizeof *s.blocks);
    bool ran = bench_run_measurer(ctx, "heap-measure", cpu, 0, measurer, &s, s.malloc_m);
    record_checks(&s);
    rts_heap_free(s.blocks);
    return ran ? 0 : 1;
}

static const rts_param_decl params[] = {
    { "batch", "1000", 1, 100000, true, "blocks allocated per round before they are freed" },
    BENCH_PARAM_COUNT,
    RTS_PARAM_CPU("the last CPU"),
    { "size", "4", 1, 1048576, true, "bytes per block (documented variants: 4, 128, 4096)" },
    BENCH_PARAM_WARMUP("1000"),
};

static const char *const metrics[] = { "heap.malloc", "heap.free", NULL };

RTS_BENCH_DEFINE(rts_bench_heap) = {
    .id = "heap.ops",
    .summary = "heap: one allocation of size bytes (heap.malloc) / one free (heap.free), in batches",
    .metrics = metrics,
    .params = params,
    .nparams = sizeof params / sizeof params[0],
    .run = run,
};
