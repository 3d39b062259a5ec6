/* Real-time setup (see rtsetup.h). */
#include "rtsetup.h"

#include <string.h>

/* Lock memory when asked: a page fault inside a measured path lands in the maxima. */
static void setup_memory(rts_run *run)
{
    const rts_rtconfig *want = &run->req->requested;
    run->granted.stack_prefault = want->stack_prefault;
    run->granted.mlockall = false;
    if (!want->mlockall)
        return;
    if (run->req->refuse_privilege) {
        rts_run_warn(run, "mlockall not attempted (--refuse-privilege): page faults can reach the maxima");
        return;
    }
    rts_status st = rts_mem_lock_all();
    if (st == RTS_OK)
        run->granted.mlockall = true;
    else
        rts_run_warn(run, "mlockall refused (%s): page faults can reach the maxima", rts_status_str(st));
}

/* The supervisor's priority on a platform of one CPU, under the
 * watchdog's (RTS_PRIORITY_MAX): see setup_policy. */
#define ONE_CPU_SUPERVISOR_PRIORITY (RTS_PRIORITY_MAX - 1)

/* Try the requested policy on this thread, then return it to normal: the
 * supervisor itself must not compete with the measuring threads. On one
 * CPU (an RTOS on a microcontroller) it must outrank them instead: it
 * starts a test's threads one after another, and the first one that
 * spins would otherwise keep it from starting the next (a second
 * yielder, a Thread-Metric reporter). There it only sleeps between its
 * checks (every 50 ms), a short interruption of the measurement. */
static void setup_policy(rts_run *run)
{
    const rts_rtconfig *want = &run->req->requested;
    run->granted.policy = RTS_POLICY_OTHER;
    run->granted.priority = 0;
    if (want->policy == RTS_POLICY_OTHER)
        return;
    const char *name = rts_policy_name(want->policy);
    if (run->req->refuse_privilege) {
        rts_run_warn(run, "%s priority %d not attempted (--refuse-privilege): measuring at normal priority, "
                          "where wake-ups also carry the kernel's timer slack",
                     name, want->priority);
        return;
    }
    rts_status st = rts_self_set_sched(want->policy, want->priority);
    if (st != RTS_OK) {
        rts_run_warn(run, "%s priority %d refused (%s): measuring at normal priority, where wake-ups also "
                          "carry the kernel's timer slack",
                     name, want->priority, rts_status_str(st));
        return;
    }
    if (rts_cpu_count() > 1 || rts_self_set_sched(want->policy, ONE_CPU_SUPERVISOR_PRIORITY) != RTS_OK)
        rts_self_set_sched(RTS_POLICY_OTHER, 0);
    run->granted.policy = want->policy;
    run->granted.priority = want->priority;
}

/* Deep idle states add tens of microseconds to every wake-up from idle;
 * cyclictest holds the same request while it measures. */
static void setup_cpu_latency(rts_run *run)
{
    int want = run->req->requested.cpu_latency_us;
    run->granted.cpu_latency_us = -1;
    if (want < 0)
        return;
    if (run->req->refuse_privilege) {
        rts_run_warn(run, "CPU wake-up latency limit not attempted (--refuse-privilege): idle states may "
                          "lengthen wake-ups");
        return;
    }
    rts_status st = rts_cpu_latency_limit(want);
    if (st == RTS_OK)
        run->granted.cpu_latency_us = want;
    else
        rts_run_warn(run, "CPU wake-up latency limit refused (%s): idle states may lengthen wake-ups",
                     rts_status_str(st));
}

/* Real-time threads under RT throttling are stopped for the rest of each
 * period once they used their share of it: say so. */
static void warn_rt_throttling(rts_run *run)
{
    const rts_sysinfo *s = &run->sys;
    if (s->rt_runtime_us >= 0 && run->granted.policy != RTS_POLICY_OTHER && s->rt_period_us > 0 &&
        s->rt_runtime_us < s->rt_period_us)
        rts_run_warn(run, "RT throttling is on (%lld of %lld us): a real-time thread that keeps a CPU busy "
                          "is stopped for the rest of each period",
                     s->rt_runtime_us, s->rt_period_us);
}

void rts_rtsetup_apply(rts_run *run)
{
    const rts_rtconfig *want = &run->req->requested;
    memcpy(run->granted.cpus, want->cpus, sizeof want->cpus);
    run->granted.ncpus = want->ncpus; /* validated by the CLI: allowed CPUs */
    setup_memory(run);
    setup_policy(run);
    setup_cpu_latency(run);
    warn_rt_throttling(run);
}
