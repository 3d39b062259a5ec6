/*
 * app.workload — an application's threads multiplying (docs/workload.md).
 *
 * P groups × N threads, each thread doing one operation (app_ops.h) per
 * iteration on data its group shares under one mutex: it takes its
 * operands from the shared data under the mutex, then sorts or computes on
 * its own copy. All threads are released together at a barrier for every
 * iteration, by a releaser one priority above them; they run SCHED_RR at
 * the granted priority (when a real-time policy is granted at all) and by
 * default all on one CPU, as the study this reproduces.
 *
 * Per thread and iteration:
 *   execution time  its work's first instruction (taking the mutex) to its last;
 *   response time   the release to that first instruction;
 *   waiting time    within the execution time, the time runnable but not
 *                   running (the scheduler's per-thread run-queue wait,
 *                   RT throttling included: app.wait.runqueue) plus the time
 *                   blocked on the mutex (app.wait.mutex), measured around
 *                   the lock less the run-queue wait within it, so that the
 *                   wait after the holder's unlock is counted once.
 * The two parts are metrics of their own, so that their distributions show
 * which one a waiting time is made of; app.wait is their sum.
 *
 * Between iterations, while every thread waits at the barrier, the releaser
 * checks every result (sorted and a permutation of the input; equal to the
 * reference product) and records the samples: checking costs none of the
 * measured time. The groups are thread groups in this version, also where
 * the port has processes (the check processes_are_threads says so).
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "app_ops.h"
#include "bench_util.h"

#define MS UINT64_C(1000000)
#define MAX_GROUPS 16
/* A lock that took longer than this may have included run-queue wait (the
 * thread was woken by the holder's unlock, or preempted): the scheduler's
 * count is read then to take it out. A shorter one was not blocked. */
#define LOCK_CONTENDED_NS 2000u
#define ARRIVAL_SLICE_NS (50 * MS) /* how often the releaser looks at the stop flag */

typedef enum { M_EXEC, M_RESPONSE, M_WAIT, M_WAIT_RUNQUEUE, M_WAIT_MUTEX, M_COUNT } metric_index;

static const char *const metric_ids[] = { "app.exec", "app.response", "app.wait", "app.wait.runqueue",
                                          "app.wait.mutex", NULL };

static const char *const metric_descriptions[M_COUNT] = {
    "execution time: a thread's first instruction of one operation (taking the shared mutex) to its last",
    "response time: the common release at the barrier to the thread's first instruction",
    "waiting time within the execution time: run-queue wait plus time blocked on the shared mutex",
    "run-queue wait within the execution time (the scheduler's per-thread count; RT throttling included)",
    "time blocked on the shared mutex, measured around the lock, less the run-queue wait within it",
};

/* A kind of work a group shares data for: the op, or (op mix) quick and matrix_mul. */
#define MAX_KINDS 2

typedef struct {
    rts_mutex *mutex;
    int32_t *input[MAX_KINDS];      /* the shared operands */
    int32_t *reference[MAX_KINDS];  /* matrix ops: the result, computed once */
    app_reference ref[MAX_KINDS];
} app_group;

typedef struct app_bench app_bench;

/* One iteration of one thread, written by it before it arrives at the barrier. */
typedef struct {
    uint64_t exec_ns, response_ns, wait_runqueue_ns, wait_mutex_ns;
} app_sample;

typedef struct {
    app_bench *b;
    app_group *group;
    unsigned kind;
    app_shape shape;
    int cpu;
    int32_t *data, *output;         /* its own copy of the operands, and its result */
    rts_sem *gate;                  /* given by the releaser at each release */
    rts_sched_stats *stats;         /* NULL: the port counts no run-queue wait */
    app_sample sample;
    bool completed;                 /* its last iteration ran to its end */
    uint64_t iterations;            /* iterations it completed */
    bench_watch watch;
    rts_thread *thread;
} app_thread;

struct app_bench {
    rts_ctx *ctx;
    rts_metric *m[M_COUNT];
    app_shape shapes[MAX_KINDS];
    unsigned nkinds, ngroups, nthreads_per_group, nthreads, created;
    uint64_t iterations;
    bool full;                      /* measure=full: waiting time too */
    bool round_robin;
    bool one_cpu;
    app_group groups[MAX_GROUPS];
    app_thread *threads;
    rts_sem *arrived;               /* given by each thread when it waits at the barrier */
    uint64_t release_ns;            /* the last release, stamped before the gates are given (which
                                     * orders it before every thread's read) */
    atomic_bool stop;               /* threads and ops give up */
    rts_thread *releaser;
    uint64_t released;              /* iterations released and completed by all */
    uint64_t checked, wrong[APP_RESULT_WRONG_MATRIX + 1]; /* results checked, and wrong by what */
    rts_status create_status;       /* why the first thread that could not start did not */
};

/* ------------------------------------------------------------ the thread */

static void read_times(rts_sched_stats *s, rts_sched_times *t)
{
    if (s && rts_sched_stats_read(s, t) != RTS_OK)
        *t = (rts_sched_times){ 0 };
}

/* One iteration: the numbered steps are the measured path. */
static void work_once(app_thread *t)
{
    app_bench *b = t->b;
    rts_sched_stats *stats = b->full ? t->stats : NULL;
    rts_sched_times before = { 0 }, at_lock = { 0 }, after = { 0 };
    /* 1. Where the scheduler's count stands, just before the work. */
    read_times(stats, &before);
    /* 2. The first instruction: the response ends, the execution starts. */
    uint64_t first = rts_time_ns();
    /* 3. The operands, from the shared data under the group's mutex. */
    rts_mutex_lock(t->group->mutex);
    uint64_t locked = b->full ? rts_time_ns() : first;
    bool contended = locked - first > LOCK_CONTENDED_NS;
    if (contended)
        read_times(stats, &at_lock);
    memcpy(t->data, t->group->input[t->kind], app_input_len(&t->shape) * sizeof *t->data);
    rts_mutex_unlock(t->group->mutex);
    /* 4. The operation on its own copy. */
    t->completed = app_run(&t->shape, t->data, t->output, &b->stop);
    /* 5. The last instruction, and the scheduler's count after it. */
    uint64_t last = rts_time_ns();
    read_times(stats, &after);
    uint64_t lock_ns = locked - first;
    uint64_t queued_in_lock = contended && stats ? at_lock.wait_ns - before.wait_ns : 0;
    t->sample = (app_sample){
        .exec_ns = last - first,
        .response_ns = first - b->release_ns,
        .wait_runqueue_ns = after.wait_ns - before.wait_ns,
        .wait_mutex_ns = lock_ns > queued_in_lock ? lock_ns - queued_in_lock : 0,
    };
}

/* A thread's scheduler statistics are its own: it opens them itself. */
static void thread_main(void *arg)
{
    app_thread *t = arg;
    app_bench *b = t->b;
    if (rts_port_caps() & RTS_CAP_SCHED_STATS)
        rts_sched_stats_open(&t->stats);
    if (t->cpu >= 0)
        bench_watch_begin(&t->watch, t->cpu);
    for (;;) {
        rts_sem_give(b->arrived);
        rts_sem_take(t->gate, RTS_FOREVER);
        if (atomic_load(&b->stop))
            break;
        work_once(t);
        if (!t->completed)
            break;
        t->iterations++;
    }
    if (t->cpu >= 0)
        bench_watch_end(&t->watch);
}

/* ---------------------------------------------------------- the releaser */

/* Wait until every thread arrived at the barrier; false once stopped. */
static bool await_arrivals(app_bench *b)
{
    for (unsigned n = 0; n < b->created;) {
        rts_status st = rts_sem_take(b->arrived, ARRIVAL_SLICE_NS);
        if (atomic_load(&b->stop))
            return false;
        n += st == RTS_OK;
    }
    return true;
}

/* Check every thread's result of the iteration just done and record its samples. */
static void collect(app_bench *b)
{
    for (unsigned i = 0; i < b->created; i++) {
        app_thread *t = &b->threads[i];
        app_result r = app_check(&t->shape, t->data, t->output, &t->group->ref[t->kind]);
        b->checked++;
        b->wrong[r] += r != APP_RESULT_OK;
        const app_sample *s = &t->sample;
        rts_metric_add(b->m[M_EXEC], (double)s->exec_ns);
        rts_metric_add(b->m[M_RESPONSE], (double)s->response_ns);
        rts_metric_add(b->m[M_WAIT], (double)(s->wait_runqueue_ns + s->wait_mutex_ns));
        rts_metric_add(b->m[M_WAIT_RUNQUEUE], (double)s->wait_runqueue_ns);
        rts_metric_add(b->m[M_WAIT_MUTEX], (double)s->wait_mutex_ns);
    }
}

/* Release every thread, wait for all, check and record; until the
 * iterations are done or the run stops. */
static void releaser_main(void *arg)
{
    app_bench *b = arg;
    while (await_arrivals(b)) {
        if (b->released > 0)
            collect(b);
        if (b->released == b->iterations)
            break;
        b->release_ns = rts_time_ns();
        for (unsigned i = 0; i < b->created; i++)
            rts_sem_give(b->threads[i].gate);
        b->released++;
    }
    rts_ctx_stop(b->ctx);
}

/* ------------------------------------------------------------ the setup */

/* The shapes of the op parameter: one kind, or mix's two. False after rts_ctx_fail. */
static bool plan_shapes(app_bench *b)
{
    const char *name = rts_ctx_param_text(b->ctx, "op");
    size_t size = (size_t)rts_ctx_param(b->ctx, "size");
    size_t side = (size_t)floor(sqrt((double)size));
    app_op ops[MAX_KINDS];
    if (strcmp(name, "mix") == 0) {
        ops[0] = APP_QUICK;
        ops[1] = APP_MATRIX_MUL;
        b->nkinds = 2;
    } else if (app_op_find(name, &ops[0])) {
        b->nkinds = 1;
    } else {
        rts_ctx_fail(b->ctx, "unknown op %s", name);
        return false;
    }
    for (unsigned k = 0; k < b->nkinds; k++)
        b->shapes[k] = (app_shape){ .op = ops[k], .n = size, .side = side };
    return true;
}

/* An allocation of count integers, counted in *bytes whether it succeeds. */
static int32_t *integers(size_t count, double *bytes)
{
    *bytes += (double)count * sizeof(int32_t);
    return count ? rts_heap_calloc(count, sizeof(int32_t)) : NULL;
}

/* Each group's mutex, operands and references: a different input per group. */
static bool make_groups(app_bench *b, double *bytes)
{
    atomic_bool never = false;
    for (unsigned g = 0; g < b->ngroups; g++) {
        app_group *grp = &b->groups[g];
        if (rts_mutex_create(&grp->mutex, false) != RTS_OK)
            return false;
        for (unsigned k = 0; k < b->nkinds; k++) {
            const app_shape *s = &b->shapes[k];
            grp->input[k] = integers(app_input_len(s), bytes);
            grp->reference[k] = integers(app_output_len(s), bytes);
            if (!grp->input[k] || (app_output_len(s) && !grp->reference[k]))
                return false;
            app_fill(s, grp->input[k], 1 + g * MAX_KINDS + k);
            if (app_op_is_sort(s->op))
                grp->ref[k].digest = app_multiset_digest(grp->input[k], s->n);
            else
                app_run(s, grp->input[k], grp->reference[k], &never);
            grp->ref[k].matrix = grp->reference[k];
        }
    }
    return true;
}

/* Every thread's buffers and gate; mix gives a group's threads quick and matrix_mul in turn. */
static bool make_threads(app_bench *b, double *bytes)
{
    b->threads = rts_heap_calloc(b->nthreads, sizeof *b->threads);
    if (!b->threads)
        return false;
    for (unsigned i = 0; i < b->nthreads; i++) {
        app_thread *t = &b->threads[i];
        t->b = b;
        t->group = &b->groups[i / b->nthreads_per_group];
        t->kind = (i % b->nthreads_per_group) % b->nkinds;
        t->shape = b->shapes[t->kind];
        t->data = integers(app_input_len(&t->shape), bytes);
        t->output = integers(app_output_len(&t->shape), bytes);
        if (!t->data || (app_output_len(&t->shape) && !t->output) || rts_sem_create(&t->gate, 0, 1) != RTS_OK)
            return false;
    }
    return rts_sem_create(&b->arrived, 0, b->nthreads) == RTS_OK;
}

/* The CPU of each thread: all on one (placement one), or spread over
 * --cpus, else over every allowed CPU. Returns the releaser's. */
static int place_threads(app_bench *b)
{
    int cpus[RTS_MAX_CPUS], ncpus;
    b->one_cpu = strcmp(rts_ctx_param_text(b->ctx, "placement"), "one") == 0;
    if (b->one_cpu) {
        cpus[0] = rts_ctx_cpu(b->ctx, rts_ctx_last_allowed_cpu());
        ncpus = 1;
    } else {
        ncpus = rts_ctx_cpus(b->ctx, cpus);
        if (ncpus == 1 && cpus[0] < 0)
            for (int c = ncpus = 0; c < rts_cpu_count() && c < RTS_MAX_CPUS; c++)
                if (rts_cpu_allowed(c))
                    cpus[ncpus++] = c;
    }
    for (unsigned i = 0; i < b->nthreads; i++)
        b->threads[i].cpu = cpus[i % (unsigned)ncpus];
    return cpus[0];
}

/* Start every thread at the granted priority, SCHED_RR when a real-time
 * policy is granted: equal threads sharing a CPU by time slices is the
 * workload (under FIFO each would keep the CPU to its end). Stops at the
 * first that cannot start; b->created counts those that did. */
static void start_threads(app_bench *b)
{
    for (unsigned i = 0; i < b->nthreads; i++) {
        app_thread *t = &b->threads[i];
        rts_thread_attr attr = rts_ctx_thread_attr(b->ctx, "app-worker", t->cpu, 0);
        b->round_robin = attr.policy != RTS_POLICY_OTHER;
        if (b->round_robin)
            attr.policy = RTS_POLICY_RR;
        rts_status st = rts_thread_create(&t->thread, &attr, thread_main, t);
        if (st != RTS_OK) {
            b->create_status = st;
            return;
        }
        b->created++;
    }
}

/* ------------------------------------------------------- the verdict */

/* Record a check on every metric: a count, or (is_bool) a yes or no. */
static void check_all(app_bench *b, const char *name, long long value, bool is_bool)
{
    for (unsigned k = 0; k < M_COUNT; k++)
        if (is_bool)
            rts_metric_check_bool(b->m[k], name, value != 0);
        else
            rts_metric_check_int(b->m[k], name, value);
}

static void invalidate_all(app_bench *b, const char *reason)
{
    for (unsigned k = 0; k < M_COUNT; k++)
        rts_metric_invalidate(b->m[k], "%s", reason);
}

static void judge(app_bench *b, bool stats_everywhere)
{
    char reason[256]; /* the metric keeps the first RTS_MESSAGE_TEXT - 1 bytes */
    bool same_cpu = true;
    uint64_t fewest = b->created ? UINT64_MAX : 0;
    for (unsigned i = 0; i < b->created; i++) {
        same_cpu = same_cpu && (b->threads[i].cpu < 0 || b->threads[i].watch.stayed);
        if (b->threads[i].iterations < fewest)
            fewest = b->threads[i].iterations;
    }
    uint64_t wrong = b->wrong[APP_RESULT_UNSORTED] + b->wrong[APP_RESULT_NOT_PERMUTATION] + b->wrong[APP_RESULT_WRONG_MATRIX];
    check_all(b, "threads_created", b->created, false);
    check_all(b, "iterations_done", (long long)fewest, false);
    check_all(b, "results_checked", (long long)b->checked, false);
    check_all(b, "results_wrong", (long long)wrong, false);
    check_all(b, "round_robin", b->round_robin, true);
    check_all(b, "same_cpu", same_cpu, true);
    check_all(b, "runqueue_measured", b->full && stats_everywhere, true);
    check_all(b, "processes_are_threads", b->ngroups > 1, true);
    if (b->created < b->nthreads) {
        snprintf(reason, sizeof reason, "created %u of the %u threads asked (%s)", b->created, b->nthreads,
                 rts_status_str(b->create_status));
        invalidate_all(b, reason);
    }
    for (app_result r = APP_RESULT_UNSORTED; r <= APP_RESULT_WRONG_MATRIX; r++)
        if (b->wrong[r]) {
            snprintf(reason, sizeof reason, "%llu of %llu results wrong: %s", (unsigned long long)b->wrong[r],
                          (unsigned long long)b->checked, app_result_text(r));
            invalidate_all(b, reason);
        }
    if (fewest < b->iterations) {
        snprintf(reason, sizeof reason, "a thread completed %llu of its %llu iterations: the run ended first "
                      "(a longer --duration lets it finish)", (unsigned long long)fewest,
                      (unsigned long long)b->iterations);
        invalidate_all(b, reason);
    }
    if (!same_cpu) {
        snprintf(reason, sizeof reason, "a thread left its CPU while measuring");
        invalidate_all(b, reason);
    }
    if (!b->full) {
        for (metric_index k = M_WAIT; k <= M_WAIT_MUTEX; k++)
            rts_metric_invalidate(b->m[k], "not measured: measure=exec times the execution only");
    } else if (!stats_everywhere) {
        const char *why = "this port counts no per-thread run-queue wait (no scheduler statistics)";
        rts_metric_invalidate(b->m[M_WAIT_RUNQUEUE], "not measured: %s", why);
        rts_metric_invalidate(b->m[M_WAIT], "holds only the time blocked on the mutex: %s", why);
    }
}

/* ------------------------------------------------------------ the run */

/* The metrics, labelled with what tells runs of this bench apart. */
static bool make_metrics(app_bench *b)
{
    const char *op = rts_ctx_param_text(b->ctx, "op");
    for (unsigned k = 0; k < M_COUNT; k++) {
        rts_metric *m = b->m[k] = rts_ctx_metric(b->ctx, metric_ids[k], metric_descriptions[k], false);
        if (!m)
            return false;
        rts_metric_label_int(m, "threads", b->nthreads_per_group);
        rts_metric_label_text(m, "op", op);
        rts_metric_label_int(m, "processes", b->ngroups);
    }
    return true;
}

/* Everything the run needs, made before any thread starts; false after rts_ctx_fail. */
static bool prepare(app_bench *b)
{
    double bytes = 0;
    if (!plan_shapes(b) || !make_metrics(b))
        return false;
    if (!make_groups(b, &bytes) || !make_threads(b, &bytes)) {
        rts_ctx_fail(b->ctx, "%u threads of %s on %.0f integers need %.1f MiB: the heap could not give them",
                     b->nthreads, rts_ctx_param_text(b->ctx, "op"), rts_ctx_param(b->ctx, "size"),
                     bytes / (1024.0 * 1024.0));
        return false;
    }
    return true;
}

/* Stop what runs: ops give up, threads at the barrier are let through to end. */
static void wind_down(app_bench *b)
{
    atomic_store(&b->stop, true);
    for (unsigned i = 0; i < b->created; i++)
        rts_sem_give(b->threads[i].gate);
    if (b->releaser)
        rts_thread_join(b->releaser);
    for (unsigned i = 0; i < b->created; i++)
        rts_thread_join(b->threads[i].thread);
}

static bool every_thread_has_stats(const app_bench *b)
{
    for (unsigned i = 0; i < b->created; i++)
        if (!b->threads[i].stats)
            return false;
    return b->created > 0;
}

static void release_all(app_bench *b)
{
    for (unsigned g = 0; g < b->ngroups; g++) {
        app_group *grp = &b->groups[g];
        if (grp->mutex)
            rts_mutex_destroy(grp->mutex);
        for (unsigned k = 0; k < MAX_KINDS; k++) {
            rts_heap_free(grp->input[k]);
            rts_heap_free(grp->reference[k]);
        }
    }
    for (unsigned i = 0; b->threads && i < b->nthreads; i++) {
        app_thread *t = &b->threads[i];
        rts_sched_stats_close(t->stats);
        if (t->gate)
            rts_sem_destroy(t->gate);
        rts_heap_free(t->data);
        rts_heap_free(t->output);
    }
    if (b->arrived)
        rts_sem_destroy(b->arrived);
    rts_heap_free(b->threads);
    rts_heap_free(b);
}

static int run(rts_ctx *ctx)
{
    app_bench *b = rts_heap_calloc(1, sizeof *b);
    if (!b) {
        rts_ctx_fail(ctx, "out of memory");
        return 1;
    }
    *b = (app_bench){
        .ctx = ctx,
        .ngroups = (unsigned)rts_ctx_param(ctx, "processes"),
        .nthreads_per_group = (unsigned)rts_ctx_param(ctx, "threads"),
        .iterations = (uint64_t)rts_ctx_param(ctx, "iterations"),
        .full = strcmp(rts_ctx_param_text(ctx, "measure"), "full") == 0,
    };
    b->nthreads = b->ngroups * b->nthreads_per_group;
    /* 1. Data, references, buffers and metrics, before any thread starts. */
    bool ok = prepare(b);
    if (ok) {
        /* 2. The threads, then the releaser above them on the first one's CPU. */
        int releaser_cpu = place_threads(b);
        start_threads(b);
        if (b->created == b->nthreads)
            b->releaser = rts_ctx_spawn(ctx, "app-release", releaser_cpu, 1, releaser_main, b);
        /* 3. Until the iterations are done, the planned end or a stop. */
        if (b->releaser)
            rts_ctx_wait(ctx, b->m[M_EXEC]);
        wind_down(b);
        /* 4. What was checked, and what makes the figures invalid. */
        judge(b, every_thread_has_stats(b));
    }
    release_all(b);
    return ok ? 0 : 1;
}

static const rts_param_decl params[] = {
    { "threads", "2", 1, RTS_MAX_APP_THREADS, true, "threads of each process (the study: 2 to 32)" },
    { "processes", "1", 1, MAX_GROUPS, true,
      "processes, each with its threads, its own shared data and mutex (run as thread groups)" },
    RTS_PARAM_CHOICE("op", "quick", "selection,quick,matrix_add,matrix_mul,mix",
                     "each thread's operation; mix: quick and matrix_mul in turn"),
    { "size", "1000", 2, 1e6, true,
      "integers a sort sorts; a matrix op's elements per matrix (a square of side floor(sqrt(size)))" },
    { "iterations", "100", 1, 1e6, true, "times every thread does its operation, all released together each time" },
    RTS_PARAM_CHOICE("placement", "one", "one,spread",
                     "one: every thread on one CPU (the study); spread: threads over --cpus, else every CPU"),
    RTS_PARAM_CHOICE("measure", "full", "full,exec",
                     "full: execution, response and waiting time; exec: no waiting time (the instrumentation's "
                     "cost is the difference)"),
    RTS_PARAM_CPU("the last allowed CPU (placement one)"),
};

RTS_BENCH_DEFINE(rts_bench_app_workload) = {
    .id = "app.workload",
    .summary = "P x N threads sorting or multiplying shared data under a mutex: execution, waiting, response time",
    .metrics = metric_ids,
    .params = params,
    .nparams = sizeof params / sizeof params[0],
    .needs_caps = 0,
    .run = run,
};
