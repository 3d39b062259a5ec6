/* Suites: the benches that answer one question together. */
#include <string.h>

#include "rtscope/bench.h"

static const char *const micro[] = {
    "ctxsw.sem", "ctxsw.yield", "heap.ops", "mutex.ops", "mutex.handoff", "thread.ops", "sem.ops", "msgq.ops", NULL,
};

static const char *const threadmetric[] = {
    "tm.basic", "tm.coop", "tm.preempt", "tm.irq", "tm.irq_preempt", "tm.message", "tm.sync", "tm.memory", NULL,
};

static const char *const latency[] = { "lat.wakeup", "lat.preempt", "lat.preempt_timer", "lat.irq", NULL };

static const char *const wave[] = { "wave.square", NULL };

static const char *const crypto[] = {
    "crypto.aes128_cbc", "crypto.aes128_gcm", "crypto.sha256", "crypto.chacha20_poly1305", NULL,
};

static const char *const quick[] = { "ctxsw.sem", "lat.wakeup", NULL };

const rts_suite rts_suites[] = {
    { "micro", "per-operation cost of OS services (one sample per operation, ns and cycles)", micro },
    { "threadmetric", "Thread-Metric: service throughput per reporting period, relative to tm.basic", threadmetric },
    { "latency", "worst cases: periodic wake-up, preemption (semaphore and timer), timer interrupt", latency },
    { "wave", "a square wave toggled by a generator process, timed edge by edge (model and period_us as params)",
      wave },
    { "crypto", "throughput of the build's crypto library (bytes/s), each algorithm checked against its known answer",
      crypto },
    { "quick", "a first look: context switch and wake-up latency", quick },
    { NULL, NULL, NULL },
};

const rts_suite *rts_suite_find(const char *id)
{
    for (const rts_suite *s = rts_suites; s->id; s++)
        if (strcmp(s->id, id) == 0)
            return s;
    return NULL;
}
