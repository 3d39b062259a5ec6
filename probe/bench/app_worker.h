/*
 * One thread of the application workload (app.workload) and what it shares
 * with the releaser that opens the barrier for every iteration: the probe's
 * own threads (processes=1, or a port without processes) and the threads
 * of its worker processes (rtscope-probe app-process, app_process.c) run
 * the same loop. Between processes the data, the results and the barrier
 * live in one shared region, laid out by app_layout.
 */
#ifndef RTSCOPE_APP_WORKER_H
#define RTSCOPE_APP_WORKER_H

#include "app_ops.h"
#include "bench_util.h"

#define APP_MAX_KINDS 2 /* a process's kinds of work: its op, or mix's quick and matrix_mul */

/* What each iteration measures (the measure parameter). */
typedef enum {
    APP_MEASURE_FULL,         /* execution, response and waiting time */
    APP_MEASURE_EXEC,         /* execution and response time only: two clock reads */
    APP_MEASURE_BOTH          /* FULL in even iterations, EXEC in odd ones: the instrumentation's
                               * cost within one run, where the machine's drift cancels */
} app_measure;

/* Whether iteration (from 0) measures waiting time too. */
static inline bool app_measures_wait(app_measure m, uint64_t iteration)
{
    return m == APP_MEASURE_FULL || (m == APP_MEASURE_BOTH && iteration % 2 == 0);
}

/* The barrier's shared state. Between threads of the probe, semaphores do
 * the waiting and only stop and release_ns are used; between processes
 * (the port's semaphores do not cross them) threads wait with
 * rts_shm_wait for generation to move, and the last to arrive wakes the
 * releaser waiting on arrived. */
typedef struct {
    atomic_uint generation;   /* releases so far (and one more to let everyone out at the end) */
    atomic_uint arrived;      /* threads waiting at the barrier since the last release */
    unsigned threads;         /* threads of every process */
    atomic_bool stop;         /* threads leave, operations give up */
    uint64_t release_ns;      /* the last release, stamped before it is published */
} app_sync;

/* One iteration of one thread, in ns. */
typedef struct {
    uint64_t exec_ns, response_ns, wait_runqueue_ns, wait_mutex_ns;
} app_sample;

/* What a thread reports, read by the releaser while the thread waits. */
typedef struct {
    app_sample sample;        /* its last iteration */
    uint64_t iterations;      /* iterations it completed */
    int cpu;                  /* the CPU it runs on (-1: any) */
    unsigned kind;            /* index of its shape */
    bool started;             /* it runs */
    bool completed;           /* its last iteration ran to its end */
    bool stayed;              /* it stayed on its CPU (when pinned) */
    bool has_stats;           /* it could read its scheduler statistics */
} app_slot;

typedef struct {
    app_slot *slot;
    app_sync *sync;
    rts_mutex *mutex;         /* its process's */
    const int32_t *input;     /* its process's operands, under mutex */
    int32_t *data, *output;   /* its own copy, and its result */
    app_shape shape;
    app_measure measure;
    rts_sem *gate, *arrived;  /* the barrier between threads of one process; NULL between processes */
    rts_thread *thread;
} app_worker;

/* The thread's body: fn of rts_thread_create with an app_worker. */
void app_worker_main(void *arg);

/* ---- the shared region of the processes mode ---- */

#define APP_MAGIC 0x41505031u /* "APP1" */

/* The region starts with this header; app_layout places the rest. */
typedef struct {
    uint32_t magic;
    uint32_t ngroups, threads_per_group, nkinds;
    app_shape shapes[APP_MAX_KINDS];
    rts_policy policy;
    int priority;
    app_measure measure;
    app_sync sync;
} app_header;

/* Byte offsets in the region: every thread's slot and buffers, every
 * process's operands, and the size of the whole. 64 bits, so that a size
 * beyond a 32-bit address space is seen (and refused), not wrapped. */
typedef struct {
    uint64_t slots;           /* app_slot[ngroups * threads_per_group] */
    uint64_t input[APP_MAX_KINDS];         /* of group 0; group g's are g * group_stride further */
    uint64_t group_stride;
    uint64_t data, output;    /* of thread 0; thread i's are i * thread_stride further */
    uint64_t thread_stride;
    uint64_t total;
} app_layout;

void app_layout_of(const app_header *h, app_layout *l);

/* Where thread i's (and group g's) things are in the region at base, of
 * l->total bytes (which the address space holds). */
app_slot *app_layout_slot(void *base, const app_layout *l, unsigned i);
int32_t *app_layout_input(void *base, const app_layout *l, unsigned g, unsigned kind);
int32_t *app_layout_data(void *base, const app_layout *l, unsigned i);
int32_t *app_layout_output(void *base, const app_layout *l, unsigned i);

#endif
