/*
 * app.workload — an application's threads multiplying (docs/workload.md).
 *
 * P processes × N threads, each thread doing one operation (app_ops.h) per
 * iteration on data its process shares under one mutex: it takes its
 * operands from the shared data under the mutex, then sorts or computes on
 * its own copy (app_worker.c). All threads are released together at a
 * barrier for every iteration, by a releaser one priority above them; they
 * run SCHED_RR at the granted priority (when a real-time policy is granted
 * at all) and by default all on one CPU, as the study this reproduces.
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
 * With P > 1 where the port has processes, each process is the probe
 * itself (rtscope-probe app-process, app_process.c) on a region of shared
 * memory holding the barrier, every thread's record and buffers, and the
 * operands; elsewhere (P = 1, or no processes) the probe's own threads run
 * on the same layout in its heap. Between iterations, while every thread
 * waits at the barrier, the releaser checks every result (sorted and a
 * permutation of the input; equal to the reference) and records the
 * samples: checking costs none of the measured time.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "app_process.h"
#include "app_worker.h"

#define MS UINT64_C(1000000)
#define MAX_GROUPS 16
#define ARRIVAL_SLICE_NS (50 * MS) /* how often the waiting releaser looks at the stop flag */
#define PROCESS_END_NS (2000 * MS) /* processes: their threads' end, once told to stop */

typedef enum { M_EXEC, M_RESPONSE, M_WAIT, M_WAIT_RUNQUEUE, M_WAIT_MUTEX, M_EXEC_BARE, M_COUNT } metric_index;

/* app.exec.bare only with measure=both. */
static const char *const metric_ids[] = { "app.exec", "app.response", "app.wait", "app.wait.runqueue",
                                          "app.wait.mutex", "app.exec.bare", NULL };

static const char *const metric_descriptions[M_COUNT] = {
    "execution time: a thread's first instruction of one operation (taking the shared mutex) to its last",
    "response time: the common release at the barrier to the thread's first instruction",
    "waiting time within the execution time: run-queue wait plus time blocked on the shared mutex",
    "run-queue wait within the execution time (the scheduler's per-thread count; RT throttling included)",
    "time blocked on the shared mutex, measured around the lock, less the run-queue wait within it",
    "measure=both: execution time of the odd iterations, timed by two clock reads and nothing else",
};

typedef struct {
    rts_ctx *ctx;
    rts_metric *m[M_COUNT];
    app_header *h;                  /* the region: its header, then app_layout's places */
    app_layout layout;
    rts_shm *shm;                   /* processes: the region; NULL: it is in the heap */
    unsigned nthreads;
    uint64_t iterations;
    bool as_processes;
    bool round_robin;
    int32_t *reference[MAX_GROUPS][APP_MAX_KINDS]; /* matrix ops: each process's result, computed once */
    app_reference ref[MAX_GROUPS][APP_MAX_KINDS];
    /* threads */
    app_worker *workers;
    rts_mutex *mutex[MAX_GROUPS];
    rts_sem *arrived;
    unsigned created;
    rts_status create_status;       /* why the first thread that could not start did not */
    /* processes */
    rts_proc *procs[MAX_GROUPS];
    int proc_status[MAX_GROUPS];
    bool proc_killed[MAX_GROUPS];
    /* the releaser */
    rts_thread *releaser;
    uint64_t released;              /* iterations released */
    uint64_t checked, wrong[APP_RESULT_WRONG_MATRIX + 1]; /* results checked, and wrong by what */
} app_bench;

static app_slot *slot(const app_bench *b, unsigned i) { return app_layout_slot(b->h, &b->layout, i); }

/* ---------------------------------------------------------- the releaser */

/* Wait until every thread arrived at the barrier; false once stopped. */
static bool await_arrivals(app_bench *b)
{
    app_sync *s = &b->h->sync;
    if (!b->as_processes) {
        for (unsigned n = 0; n < b->nthreads && !atomic_load(&s->stop);)
            n += rts_sem_take(b->arrived, ARRIVAL_SLICE_NS) == RTS_OK;
    } else {
        unsigned n;
        /* A process that died leaves its threads' arrivals missing: the run
         * then ends at its planned end, and the supervisor, at the normal
         * policy, finds the process ended. Not looked for here: waitpid()
         * on a killed child from this thread, a real-time one above the
         * child's threads on their CPU, has been seen to spin in the kernel
         * for as long as those threads could not run to their exit. */
        while ((n = atomic_load_explicit(&s->arrived, memory_order_acquire)) < b->nthreads && !atomic_load(&s->stop))
            rts_shm_wait(&s->arrived, n, ARRIVAL_SLICE_NS);
    }
    return !atomic_load(&s->stop);
}

/* Stamp the release, then open the barrier. */
static void release(app_bench *b)
{
    app_sync *s = &b->h->sync;
    s->release_ns = rts_time_ns();
    if (!b->as_processes) {
        for (unsigned i = 0; i < b->nthreads; i++)
            rts_sem_give(b->workers[i].gate);
    } else {
        atomic_store_explicit(&s->arrived, 0, memory_order_relaxed);
        atomic_fetch_add_explicit(&s->generation, 1, memory_order_release);
        rts_shm_wake(&s->generation);
    }
}

/* Check every thread's result of the iteration just done and record its
 * samples: an iteration without waiting time (measure=both's odd ones) only
 * its execution time, apart. */
static void collect(app_bench *b, uint64_t iteration)
{
    bool wait_too = app_measures_wait(b->h->measure, iteration);
    bool apart = b->h->measure == APP_MEASURE_BOTH && !wait_too;
    for (unsigned i = 0; i < b->nthreads; i++) {
        app_slot *t = slot(b, i);
        unsigned g = i / b->h->threads_per_group;
        app_result r = app_check(&b->h->shapes[t->kind], app_layout_data(b->h, &b->layout, i),
                                 app_layout_output(b->h, &b->layout, i), &b->ref[g][t->kind]);
        b->checked++;
        b->wrong[r] += r != APP_RESULT_OK;
        const app_sample *s = &t->sample;
        if (apart) {
            rts_metric_add(b->m[M_EXEC_BARE], (double)s->exec_ns);
            continue;
        }
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
            collect(b, b->released - 1);
        if (b->released == b->iterations)
            break;
        release(b);
        b->released++;
    }
    rts_ctx_stop(b->ctx);
}

/* ------------------------------------------------------------ the setup */

static app_measure measure_of(const char *name)
{
    return strcmp(name, "exec") == 0 ? APP_MEASURE_EXEC : strcmp(name, "both") == 0 ? APP_MEASURE_BOTH
                                                                                      : APP_MEASURE_FULL;
}

/* The header's fields that follow from the parameters alone: groups,
 * threads, the shapes of the op (one kind, or mix's two). False with why
 * for an unknown op. */
static bool shape_of(const rts_ctx *ctx, app_header *h, char *why, size_t whysize)
{
    const char *name = rts_ctx_param_text(ctx, "op");
    size_t size = (size_t)rts_ctx_param(ctx, "size");
    size_t side = (size_t)floor(sqrt((double)size));
    app_op ops[APP_MAX_KINDS] = { APP_QUICK, APP_MATRIX_MUL };
    *h = (app_header){
        .magic = APP_MAGIC,
        .ngroups = (unsigned)rts_ctx_param(ctx, "processes"),
        .threads_per_group = (unsigned)rts_ctx_param(ctx, "threads"),
        .nkinds = strcmp(name, "mix") == 0 ? 2 : 1,
        .measure = measure_of(rts_ctx_param_text(ctx, "measure")),
    };
    if (h->nkinds == 1 && !app_op_find(name, &ops[0])) {
        snprintf(why, whysize, "unknown op %s", name);
        return false;
    }
    for (unsigned k = 0; k < h->nkinds; k++)
        h->shapes[k] = (app_shape){ .op = ops[k], .n = size, .side = side };
    return true;
}

/* The runner's check of the parameters together: the data they ask for
 * fits this build (each is in range, their product may not be). */
static bool params_ok(const rts_ctx *ctx, char *why, size_t whysize)
{
    app_header h;
    if (!shape_of(ctx, &h, why, whysize))
        return false;
    app_layout layout;
    app_layout_of(&h, &layout);
    if (layout.total <= RTS_MAX_APP_BYTES && layout.total <= SIZE_MAX)
        return true;
    snprintf(why, whysize, "%u threads of %s on %.0f integers need %.1f MiB, more than the %.0f MiB this build "
             "allows (RTS_MAX_APP_BYTES)", (unsigned)(h.ngroups * h.threads_per_group), rts_ctx_param_text(ctx, "op"),
             rts_ctx_param(ctx, "size"), (double)layout.total / (1024.0 * 1024.0),
             (double)RTS_MAX_APP_BYTES / (1024.0 * 1024.0));
    return false;
}

/* The header: its shapes (shape_of), the threads' policy. False after
 * rts_ctx_fail. */
static bool plan(app_bench *b, app_header *h)
{
    rts_ctx *ctx = b->ctx;
    char why[RTS_MESSAGE_TEXT];
    if (!shape_of(ctx, h, why, sizeof why)) {
        rts_ctx_fail(ctx, "%s", why);
        return false;
    }
    /* SCHED_RR whenever a real-time policy is granted: equal threads sharing
     * a CPU by time slices is the workload (under FIFO each would keep the
     * CPU to its end). */
    rts_thread_attr granted = rts_ctx_thread_attr(ctx, NULL, -1, 0);
    b->round_robin = granted.policy != RTS_POLICY_OTHER;
    h->policy = b->round_robin ? RTS_POLICY_RR : RTS_POLICY_OTHER;
    h->priority = granted.priority;
    b->nthreads = h->ngroups * h->threads_per_group;
    b->as_processes = h->ngroups > 1 && (rts_port_caps() & RTS_CAP_PROCESSES);
    return true;
}

/* The region for header h: shared memory for processes, else the heap.
 * False after rts_ctx_fail, with the MiB it needed. */
static bool make_region(app_bench *b, const app_header *h)
{
    char why[RTS_MESSAGE_TEXT] = "the heap could not give them";
    app_layout_of(h, &b->layout); /* within RTS_MAX_APP_BYTES: params_ok */
    if (b->as_processes && rts_shm_create(&b->shm, (size_t)b->layout.total, why, sizeof why) == RTS_OK)
        b->h = rts_shm_base(b->shm);
    else if (!b->as_processes)
        b->h = rts_heap_calloc(1, (size_t)b->layout.total);
    if (!b->h) {
        rts_ctx_fail(b->ctx, "%u threads of %s on %.0f integers need %.1f MiB: %s", b->nthreads,
                     rts_ctx_param_text(b->ctx, "op"), rts_ctx_param(b->ctx, "size"),
                     (double)b->layout.total / (1024.0 * 1024.0), why);
        return false;
    }
    *b->h = *h;
    b->h->sync.threads = b->nthreads;
    return true;
}

/* Each process's operands, from a seed of its own, and what its results
 * are checked against: a sort's digest, a matrix op's result computed once. */
static bool make_data(app_bench *b)
{
    atomic_bool never = false;
    for (unsigned g = 0; g < b->h->ngroups; g++)
        for (unsigned k = 0; k < b->h->nkinds; k++) {
            const app_shape *s = &b->h->shapes[k];
            int32_t *input = app_layout_input(b->h, &b->layout, g, k);
            app_fill(s, input, 1 + g * APP_MAX_KINDS + k);
            if (app_op_is_sort(s->op)) {
                b->ref[g][k].digest = app_multiset_digest(input, s->n);
                continue;
            }
            b->reference[g][k] = rts_heap_calloc(app_output_len(s), sizeof(int32_t));
            if (!b->reference[g][k]) {
                rts_ctx_fail(b->ctx, "out of memory for the reference results");
                return false;
            }
            app_run(s, input, b->reference[g][k], &never);
            b->ref[g][k].matrix = b->reference[g][k];
        }
    return true;
}

/* Every thread's kind of work (mix: quick and matrix_mul in turn) and CPU:
 * all on one (placement one), or spread over --cpus, else over every
 * allowed CPU. Returns the first thread's CPU, the releaser's. */
static int place_threads(app_bench *b, bool one_cpu)
{
    int cpus[RTS_MAX_CPUS], ncpus;
    if (one_cpu) {
        cpus[0] = rts_ctx_cpu(b->ctx, rts_ctx_last_allowed_cpu());
        ncpus = 1;
    } else {
        ncpus = rts_ctx_cpus(b->ctx, cpus);
        if (ncpus == 1 && cpus[0] < 0)
            for (int c = ncpus = 0; c < rts_cpu_count() && c < RTS_MAX_CPUS; c++)
                if (rts_cpu_allowed(c))
                    cpus[ncpus++] = c;
    }
    for (unsigned i = 0; i < b->nthreads; i++) {
        slot(b, i)->cpu = cpus[i % (unsigned)ncpus];
        slot(b, i)->kind = (i % b->h->threads_per_group) % b->h->nkinds;
    }
    return cpus[0];
}

/* The probe's own threads, one group after another, each group with its
 * mutex; stops at the first that cannot start (b->created counts those
 * that did). False after rts_ctx_fail. */
static bool start_threads(app_bench *b)
{
    app_header *h = b->h;
    b->workers = rts_heap_calloc(b->nthreads, sizeof *b->workers);
    if (!b->workers || rts_sem_create(&b->arrived, 0, b->nthreads) != RTS_OK) {
        rts_ctx_fail(b->ctx, "out of memory for %u threads", b->nthreads);
        return false;
    }
    for (unsigned g = 0; g < h->ngroups; g++)
        if (rts_mutex_create(&b->mutex[g], false) != RTS_OK) {
            rts_ctx_fail(b->ctx, "cannot create a mutex");
            return false;
        }
    for (unsigned i = 0; i < b->nthreads; i++) {
        app_worker *w = &b->workers[i];
        unsigned g = i / h->threads_per_group;
        app_slot *s = slot(b, i);
        *w = (app_worker){ .slot = s, .sync = &h->sync, .mutex = b->mutex[g], .shape = h->shapes[s->kind],
                           .input = app_layout_input(h, &b->layout, g, s->kind),
                           .data = app_layout_data(h, &b->layout, i), .output = app_layout_output(h, &b->layout, i),
                           .measure = h->measure, .arrived = b->arrived };
        if (rts_sem_create(&w->gate, 0, 1) != RTS_OK) {
            rts_ctx_fail(b->ctx, "cannot create a semaphore");
            return false;
        }
        rts_thread_attr attr = rts_ctx_thread_attr(b->ctx, "app-worker", s->cpu, 0);
        attr.policy = h->policy;
        b->create_status = rts_thread_create(&w->thread, &attr, app_worker_main, w);
        if (b->create_status != RTS_OK)
            break;
        b->created++;
    }
    return true;
}

/* One process per group: the probe itself as `app-process REGION GROUP`,
 * pinned to its threads' CPU (placement one). False after rts_ctx_fail. */
static bool start_processes(app_bench *b, bool one_cpu)
{
    char self[512], group[16], why[RTS_MESSAGE_TEXT];
    if (rts_proc_self_path(self, sizeof self) != RTS_OK) {
        rts_ctx_fail(b->ctx, "processes: cannot tell where the probe's binary is");
        return false;
    }
    for (unsigned g = 0; g < b->h->ngroups; g++) {
        snprintf(group, sizeof group, "%u", g);
        const char *argv[] = { self, APP_PROCESS_COMMAND, rts_shm_path(b->shm), group, NULL };
        rts_proc_attr attr = { .argv = argv, .cpu = one_cpu ? slot(b, 0)->cpu : -1 };
        if (rts_proc_spawn(&b->procs[g], &attr, why, sizeof why) != RTS_OK) {
            rts_ctx_fail(b->ctx, "processes: %s", why);
            return false;
        }
    }
    return true;
}

/* Stop what runs: operations give up, threads at the barrier are let
 * through to their end, processes end with them (or are killed). */
static void wind_down(app_bench *b)
{
    app_sync *s = &b->h->sync;
    atomic_store(&s->stop, true);
    atomic_fetch_add(&s->generation, 1);
    rts_shm_wake(&s->generation);
    for (unsigned i = 0; i < b->created; i++)
        rts_sem_give(b->workers[i].gate);
    if (b->releaser)
        rts_thread_join(b->releaser);
    for (unsigned i = 0; i < b->created; i++)
        rts_thread_join(b->workers[i].thread);
    for (unsigned g = 0; g < MAX_GROUPS; g++) {
        if (!b->procs[g])
            continue;
        if (rts_proc_wait(b->procs[g], PROCESS_END_NS, &b->proc_status[g]) != RTS_OK) {
            b->proc_killed[g] = true;
            rts_proc_signal(b->procs[g], true);
            rts_proc_wait(b->procs[g], RTS_FOREVER, &b->proc_status[g]);
        }
    }
}

/* ------------------------------------------------------- the verdict */

/* Record a check on every metric: a count, or (is_bool) a yes or no. */
static void check_all(app_bench *b, const char *name, long long value, bool is_bool)
{
    for (unsigned k = 0; k < M_COUNT; k++)
        if (!b->m[k])
            continue;
        else if (is_bool)
            rts_metric_check_bool(b->m[k], name, value != 0);
        else
            rts_metric_check_int(b->m[k], name, value);
}

static void invalidate_all(app_bench *b, const char *reason)
{
    for (unsigned k = 0; k < M_COUNT; k++)
        if (b->m[k])
            rts_metric_invalidate(b->m[k], "%s", reason);
}

/* What the threads' records say: how many started, the fewest iterations
 * any completed, whether all stayed on their CPUs and read their statistics. */
typedef struct {
    unsigned started;
    uint64_t fewest;
    bool same_cpu, stats_everywhere;
} app_tally;

static app_tally tally(const app_bench *b)
{
    app_tally t = { .fewest = UINT64_MAX, .same_cpu = true, .stats_everywhere = true };
    for (unsigned i = 0; i < b->nthreads; i++) {
        const app_slot *s = slot(b, i);
        t.started += s->started;
        t.fewest = s->iterations < t.fewest ? s->iterations : t.fewest;
        t.same_cpu = t.same_cpu && (!s->started || s->stayed);
        t.stats_everywhere = t.stats_everywhere && s->has_stats;
    }
    return t;
}

/* A process that failed or had to be killed; the reason into reason. */
static bool process_failed(const app_bench *b, char *reason, size_t size)
{
    for (unsigned g = 0; g < MAX_GROUPS; g++)
        if (b->procs[g] && (b->proc_killed[g] || b->proc_status[g] != 0)) {
            snprintf(reason, size, b->proc_killed[g] ? "process %u did not end when told to stop: killed"
                                                     : "process %u ended with exit status %d", g, b->proc_status[g]);
            return true;
        }
    return false;
}

static void judge(app_bench *b)
{
    char reason[256]; /* the metric keeps the first RTS_MESSAGE_TEXT - 1 bytes */
    app_tally t = tally(b);
    uint64_t wrong = b->wrong[APP_RESULT_UNSORTED] + b->wrong[APP_RESULT_NOT_PERMUTATION] +
                     b->wrong[APP_RESULT_WRONG_MATRIX];
    bool stats = b->h->measure != APP_MEASURE_EXEC && t.stats_everywhere;
    check_all(b, "threads_created", t.started, false);
    check_all(b, "iterations_done", (long long)t.fewest, false);
    check_all(b, "results_checked", (long long)b->checked, false);
    check_all(b, "results_wrong", (long long)wrong, false);
    check_all(b, "round_robin", b->round_robin, true);
    check_all(b, "same_cpu", t.same_cpu, true);
    check_all(b, "runqueue_measured", stats, true);
    check_all(b, "processes_are_threads", b->h->ngroups > 1 && !b->as_processes, true);
    if (t.started < b->nthreads) {
        snprintf(reason, sizeof reason, "created %u of the %u threads asked%s%s", t.started, b->nthreads,
                 b->as_processes ? "" : ": ", b->as_processes ? "" : rts_status_str(b->create_status));
        invalidate_all(b, reason);
    }
    if (process_failed(b, reason, sizeof reason))
        invalidate_all(b, reason);
    for (app_result r = APP_RESULT_UNSORTED; r <= APP_RESULT_WRONG_MATRIX; r++)
        if (b->wrong[r]) {
            snprintf(reason, sizeof reason, "%llu of %llu results wrong: %s", (unsigned long long)b->wrong[r],
                     (unsigned long long)b->checked, app_result_text(r));
            invalidate_all(b, reason);
        }
    if (t.fewest < b->iterations) {
        snprintf(reason, sizeof reason, "a thread completed %llu of its %llu iterations: the run ended first "
                 "(a longer --duration lets it finish)", (unsigned long long)t.fewest,
                 (unsigned long long)b->iterations);
        invalidate_all(b, reason);
    }
    if (!t.same_cpu)
        invalidate_all(b, "a thread left its CPU while measuring");
    if (b->h->measure == APP_MEASURE_EXEC) {
        for (metric_index k = M_WAIT; k <= M_WAIT_MUTEX; k++)
            rts_metric_invalidate(b->m[k], "not measured: measure=exec times the execution only");
    } else if (!stats) {
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
    bool both = strcmp(rts_ctx_param_text(b->ctx, "measure"), "both") == 0;
    for (unsigned k = 0; k < (both ? M_COUNT : M_EXEC_BARE); k++) {
        rts_metric *m = b->m[k] = rts_ctx_metric(b->ctx, metric_ids[k], metric_descriptions[k], false);
        if (!m)
            return false;
        rts_metric_label_int(m, "threads", (long long)rts_ctx_param(b->ctx, "threads"));
        rts_metric_label_text(m, "op", op);
        rts_metric_label_int(m, "processes", (long long)rts_ctx_param(b->ctx, "processes"));
    }
    return true;
}

static void release_all(app_bench *b)
{
    for (unsigned g = 0; g < MAX_GROUPS; g++) {
        rts_proc_release(b->procs[g]);
        if (b->mutex[g])
            rts_mutex_destroy(b->mutex[g]);
        for (unsigned k = 0; k < APP_MAX_KINDS; k++)
            rts_heap_free(b->reference[g][k]);
    }
    for (unsigned i = 0; b->workers && i < b->nthreads; i++)
        if (b->workers[i].gate)
            rts_sem_destroy(b->workers[i].gate);
    if (b->arrived)
        rts_sem_destroy(b->arrived);
    rts_heap_free(b->workers);
    if (b->shm)
        rts_shm_close(b->shm);
    else
        rts_heap_free(b->h);
    rts_heap_free(b);
}

static int run(rts_ctx *ctx)
{
    app_bench *b = rts_heap_calloc(1, sizeof *b);
    if (!b) {
        rts_ctx_fail(ctx, "out of memory");
        return 1;
    }
    app_header h;
    *b = (app_bench){ .ctx = ctx, .iterations = (uint64_t)rts_ctx_param(ctx, "iterations") };
    bool one_cpu = strcmp(rts_ctx_param_text(ctx, "placement"), "one") == 0;
    /* 1. Metrics, region, data and references, before anything starts. */
    bool ok = make_metrics(b) && plan(b, &h) && make_region(b, &h) && make_data(b);
    if (ok) {
        /* 2. The threads (or processes), then the releaser above them on the first one's CPU. */
        int releaser_cpu = place_threads(b, one_cpu);
        ok = b->as_processes ? start_processes(b, one_cpu) : start_threads(b);
        if (ok && (b->as_processes || b->created == b->nthreads))
            b->releaser = rts_ctx_spawn(ctx, "app-release", releaser_cpu, 1, releaser_main, b);
        /* 3. Until the iterations are done, the planned end or a stop. */
        if (b->releaser)
            rts_ctx_wait(ctx, b->m[M_EXEC]);
        wind_down(b);
        /* 4. What was checked, and what makes the figures invalid. */
        judge(b);
    }
    release_all(b);
    return ok ? 0 : 1;
}

static const rts_param_decl params[] = {
    { "threads", "2", 1, RTS_MAX_APP_THREADS, true, "threads of each process (the study: 2 to 32)" },
    { "processes", "1", 1, MAX_GROUPS, true,
      "processes, each with its threads, its own shared data and mutex (thread groups where the platform has no processes)" },
    RTS_PARAM_CHOICE("op", "quick", "selection,quick,matrix_add,matrix_mul,mix",
                     "each thread's operation; mix: quick and matrix_mul in turn"),
    { "size", "1000", 2, 1e6, true,
      "integers a sort sorts; a matrix op's elements per matrix (a square of side floor(sqrt(size)))" },
    { "iterations", "100", 1, 1e6, true, "times every thread does its operation, all released together each time" },
    RTS_PARAM_CHOICE("placement", "one", "one,spread",
                     "one: every thread on one CPU (the study); spread: threads over --cpus, else every CPU"),
    RTS_PARAM_CHOICE("measure", "full", "full,exec,both",
                     "full: execution, response and waiting time; exec: no waiting time; both: full in even "
                     "iterations, exec in odd ones (app.exec.bare), whose difference is the instrumentation's "
                     "cost in one run"),
    RTS_PARAM_CPU("the last allowed CPU (placement one)"),
};

RTS_BENCH_DEFINE(rts_bench_app_workload) = {
    .id = "app.workload",
    .summary = "P x N threads sorting or multiplying shared data under a mutex: execution, waiting, response time",
    .metrics = metric_ids,
    .params = params,
    .nparams = sizeof params / sizeof params[0],
    .needs_caps = 0,
    .params_ok = params_ok,
    .run = run,
    .process_command = APP_PROCESS_COMMAND,
    .process_main = rts_app_process_main,
};
