/*
 * The probe as one process of app.workload (rtscope-probe app-process): it
 * maps the region the bench made, starts its group's threads as the header
 * says (policy, priority, each one's CPU) and lets them run the workload's
 * loop (app_worker.c) until the region says stop. Everything it measures
 * and every result it makes stays in the region, where the bench's
 * releaser reads and checks it.
 */
#include "app_process.h"

#include <stdio.h>
#include <stdlib.h>

#include "app_worker.h"

/* One line on diagnostics, "rtscope-probe: app-process: why"; the exit status 1. */
static int fail(const char *why)
{
    char line[RTS_MESSAGE_TEXT + 32];
    int n = snprintf(line, sizeof line, "rtscope-probe: app-process: %s\n", why);
    rts_diag_write(line, n < 0 ? 0 : (size_t)n < sizeof line ? (size_t)n : sizeof line - 1);
    return 1;
}

/* Start group g's threads on the region; returns how many started. */
static unsigned start_group(void *base, unsigned g, rts_mutex *mutex, app_worker *workers)
{
    app_header *h = base;
    app_layout l;
    app_layout_of(h, &l);
    unsigned started = 0;
    for (unsigned j = 0; j < h->threads_per_group; j++) {
        unsigned i = g * h->threads_per_group + j;
        app_slot *slot = app_layout_slot(base, &l, i);
        app_worker *w = &workers[j];
        *w = (app_worker){ .slot = slot, .sync = &h->sync, .mutex = mutex, .shape = h->shapes[slot->kind],
                           .input = app_layout_input(base, &l, g, slot->kind), .data = app_layout_data(base, &l, i),
                           .output = app_layout_output(base, &l, i), .measure = h->measure };
        rts_thread_attr attr = { .name = "app-worker", .policy = h->policy, .priority = h->priority,
                                 .cpu = slot->cpu, .stack_size = RTS_THREAD_STACK_BYTES };
        if (rts_thread_create(&w->thread, &attr, app_worker_main, w) != RTS_OK)
            break;
        started++;
    }
    return started;
}

int rts_app_process_main(int argc, char **argv)
{
    if (argc != 4)
        return fail("takes a region and a group: app.workload starts it");
    char why[RTS_MESSAGE_TEXT];
    rts_shm *shm = NULL;
    if (rts_shm_open(&shm, argv[2], why, sizeof why) != RTS_OK)
        return fail(why);
    app_header *h = rts_shm_base(shm);
    app_layout l;
    app_layout_of(h, &l);
    unsigned long g = strtoul(argv[3], NULL, 10);
    rts_mutex *mutex = NULL;
    app_worker *workers = NULL;
    int status = 0;
    if (h->magic != APP_MAGIC || rts_shm_size(shm) < l.total || g >= h->ngroups)
        status = fail("not a region of app.workload with this group");
    else if (rts_mutex_create(&mutex, false) != RTS_OK ||
             !(workers = rts_heap_calloc(h->threads_per_group, sizeof *workers)))
        status = fail("out of memory");
    else {
        /* Above its threads, as the bench's supervisor is: at the normal
         * policy it would wait for the CPU behind the other processes'
         * threads, which wait at the barrier for this one's. */
        if (h->policy != RTS_POLICY_OTHER)
            rts_self_set_sched(h->policy, h->priority < RTS_PRIORITY_MAX ? h->priority + 1 : RTS_PRIORITY_MAX);
        unsigned started = start_group(h, (unsigned)g, mutex, workers);
        /* One that could not start stops them all: the bench counts the threads that did. */
        if (started < h->threads_per_group)
            atomic_store(&h->sync.stop, true);
        for (unsigned j = 0; j < started; j++)
            rts_thread_join(workers[j].thread);
    }
    rts_heap_free(workers);
    if (mutex)
        rts_mutex_destroy(mutex);
    rts_shm_close(shm);
    return status;
}
