/* One thread of the application workload, and the shared region's layout (see app_worker.h). */
#include "app_worker.h"

#include <string.h>

/* A lock that took longer than this may have included run-queue wait (the
 * thread was woken by the holder's unlock, or preempted): the scheduler's
 * count is read then to take it out. A shorter one was not blocked. */
#define LOCK_CONTENDED_NS 2000u

static void read_times(rts_sched_stats *s, rts_sched_times *t)
{
    if (s && rts_sched_stats_read(s, t) != RTS_OK)
        *t = (rts_sched_times){ 0 };
}

/* One iteration: the numbered steps are the measured path. Without stats
 * (not asked for, or none), no waiting time is measured. */
static void work_once(app_worker *w, rts_sched_stats *stats, bool wait_too)
{
    rts_sched_times before = { 0 }, at_lock = { 0 }, after = { 0 };
    /* 1. Where the scheduler's count stands, just before the work. */
    read_times(stats, &before);
    /* 2. The first instruction: the response ends, the execution starts. */
    uint64_t first = rts_time_ns();
    /* 3. The operands, from the shared data under the process's mutex. */
    rts_mutex_lock(w->mutex);
    uint64_t locked = wait_too ? rts_time_ns() : first;
    bool contended = locked - first > LOCK_CONTENDED_NS;
    if (contended)
        read_times(stats, &at_lock);
    memcpy(w->data, w->input, app_input_len(&w->shape) * sizeof *w->data);
    rts_mutex_unlock(w->mutex);
    /* 4. The operation on its own copy. */
    w->slot->completed = app_run(&w->shape, w->data, w->output, &w->sync->stop);
    /* 5. The last instruction, and the scheduler's count after it. */
    uint64_t last = rts_time_ns();
    read_times(stats, &after);
    uint64_t lock_ns = locked - first;
    uint64_t queued_in_lock = contended && stats ? at_lock.wait_ns - before.wait_ns : 0;
    w->slot->sample = (app_sample){
        .exec_ns = last - first,
        .response_ns = first - w->sync->release_ns,
        .wait_runqueue_ns = after.wait_ns - before.wait_ns,
        .wait_mutex_ns = lock_ns > queued_in_lock ? lock_ns - queued_in_lock : 0,
    };
}

/* Arrive at the barrier and wait for the next release; false once told to stop. */
static bool pass_barrier(app_worker *w, unsigned *generation)
{
    app_sync *s = w->sync;
    if (w->gate) {
        rts_sem_give(w->arrived);
        rts_sem_take(w->gate, RTS_FOREVER);
    } else {
        if (atomic_fetch_add_explicit(&s->arrived, 1, memory_order_acq_rel) + 1 == s->threads)
            rts_shm_wake(&s->arrived);
        while (atomic_load_explicit(&s->generation, memory_order_acquire) == *generation)
            rts_shm_wait(&s->generation, *generation, RTS_FOREVER);
        *generation = atomic_load_explicit(&s->generation, memory_order_acquire);
    }
    return !atomic_load(&s->stop);
}

void app_worker_main(void *arg)
{
    app_worker *w = arg;
    app_slot *slot = w->slot;
    rts_sched_stats *stats = NULL;
    /* A thread's scheduler statistics are its own: it opens them itself. */
    slot->has_stats = (rts_port_caps() & RTS_CAP_SCHED_STATS) && rts_sched_stats_open(&stats) == RTS_OK;
    slot->stayed = slot->cpu < 0 || rts_self_cpu() == slot->cpu;
    slot->started = true;
    unsigned generation = atomic_load(&w->sync->generation);
    while (pass_barrier(w, &generation)) {
        bool wait_too = app_measures_wait(w->measure, slot->iterations);
        work_once(w, wait_too ? stats : NULL, wait_too);
        if (!slot->completed)
            break;
        slot->iterations++;
    }
    slot->stayed = slot->stayed && (slot->cpu < 0 || rts_self_cpu() == slot->cpu);
    rts_sched_stats_close(stats);
}

/* ---------------------------------------------------------------- layout */

#define ALIGN 64 /* a cache line: no two threads' records share one */

static uint64_t aligned(uint64_t n) { return (n + ALIGN - 1) / ALIGN * ALIGN; }

void app_layout_of(const app_header *h, app_layout *l)
{
    uint64_t nthreads = (uint64_t)h->ngroups * h->threads_per_group, at;
    uint64_t in_max = 0, out_max = 0;
    l->slots = aligned(sizeof *h);
    at = l->slots + aligned(nthreads * aligned(sizeof(app_slot)));
    l->group_stride = 0;
    for (unsigned k = 0; k < h->nkinds; k++) {
        uint64_t in = app_input_len(&h->shapes[k]), out = app_output_len(&h->shapes[k]);
        l->input[k] = at + l->group_stride;
        l->group_stride += aligned(in * sizeof(int32_t));
        in_max = in > in_max ? in : in_max;
        out_max = out > out_max ? out : out_max;
    }
    at += h->ngroups * l->group_stride;
    l->data = at;
    l->output = at + aligned(in_max * sizeof(int32_t));
    l->thread_stride = aligned(in_max * sizeof(int32_t)) + aligned(out_max * sizeof(int32_t));
    l->total = at + nthreads * l->thread_stride;
}

app_slot *app_layout_slot(void *base, const app_layout *l, unsigned i)
{
    return (app_slot *)((char *)base + (size_t)(l->slots + i * aligned(sizeof(app_slot))));
}

int32_t *app_layout_input(void *base, const app_layout *l, unsigned g, unsigned kind)
{
    return (int32_t *)((char *)base + (size_t)(l->input[kind] + g * l->group_stride));
}

int32_t *app_layout_data(void *base, const app_layout *l, unsigned i)
{
    return (int32_t *)((char *)base + (size_t)(l->data + i * l->thread_stride));
}

int32_t *app_layout_output(void *base, const app_layout *l, unsigned i)
{
    return (int32_t *)((char *)base + (size_t)(l->output + i * l->thread_stride));
}
