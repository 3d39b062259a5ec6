/* Real-time setup (see rtsetup.h). */
#include "rtsetup.h"

#include <string.h>

#include "text.h"

/* What one apply works with: the request, and what it grants. */
typedef struct {
    const rts_rtconfig *want;
    bool refuse_privilege;
    rts_rtconfig *granted;
    rts_warnings *warnings;
} setup;

/* Lock memory when asked: a page fault inside a measured path lands in the maxima. */
static void setup_memory(setup *s)
{
    s->granted->stack_prefault = s->want->stack_prefault;
    s->granted->mlockall = false;
    if (!s->want->mlockall)
        return;
    if (s->refuse_privilege) {
        rts_warn(s->warnings, "mlockall not attempted (--refuse-privilege): page faults can reach the maxima");
        return;
    }
    rts_status st = rts_mem_lock_all();
    if (st == RTS_OK)
        s->granted->mlockall = true;
    else if (st == RTS_ENOTSUP)
        s->granted->not_applicable |= RTS_SETTING_MLOCKALL;
    else
        rts_warn(s->warnings, "mlockall refused (%s): page faults can reach the maxima", rts_status_str(st));
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
static void setup_policy(setup *s)
{
    const rts_rtconfig *want = s->want;
    s->granted->policy = RTS_POLICY_OTHER;
    s->granted->priority = 0;
    if (want->policy == RTS_POLICY_OTHER)
        return;
    const char *name = rts_policy_name(want->policy);
    if (s->refuse_privilege) {
        rts_warn(s->warnings,
                 "%s priority %d not attempted (--refuse-privilege): measuring at normal priority, where "
                 "wake-ups also carry the kernel's timer slack",
                 name, want->priority);
        return;
    }
    rts_status st = rts_self_set_sched(want->policy, want->priority);
    if (st != RTS_OK) {
        rts_warn(s->warnings,
                 "%s priority %d refused (%s): measuring at normal priority, where wake-ups also carry the "
                 "kernel's timer slack",
                 name, want->priority, rts_status_str(st));
        return;
    }
    if (rts_cpu_count() > 1 || rts_self_set_sched(want->policy, ONE_CPU_SUPERVISOR_PRIORITY) != RTS_OK)
        rts_self_set_sched(RTS_POLICY_OTHER, 0);
    s->granted->policy = want->policy;
    s->granted->priority = want->priority;
}

/* Deep idle states add tens of microseconds to every wake-up from idle;
 * cyclictest holds the same request while it measures. */
static void setup_cpu_latency(setup *s)
{
    int want = s->want->cpu_latency_us;
    s->granted->cpu_latency_us = -1;
    if (want < 0)
        return;
    if (s->refuse_privilege) {
        rts_warn(s->warnings, "CPU wake-up latency limit not attempted (--refuse-privilege): idle states may "
                              "lengthen wake-ups");
        return;
    }
    rts_status st = rts_cpu_latency_limit(want);
    if (st == RTS_OK)
        s->granted->cpu_latency_us = want;
    else if (st == RTS_ENOTSUP)
        s->granted->not_applicable |= RTS_SETTING_CPU_LATENCY;
    else
        rts_warn(s->warnings, "CPU wake-up latency limit refused (%s): idle states may lengthen wake-ups",
                 rts_status_str(st));
}

/* Lift RT throttling for the run when asked (--rt-throttling off): the
 * port puts it back with every system setting at the run's end
 * (rts_rtsetup_release), whatever that end is. */
static void setup_rt_throttling(setup *s)
{
    s->granted->rt_throttling_off = false;
    if (!s->want->rt_throttling_off)
        return;
    if (s->refuse_privilege) {
        rts_warn(s->warnings, "RT throttling not lifted (--refuse-privilege)");
        return;
    }
    rts_status st = rts_rt_throttling_lift();
    if (st == RTS_OK)
        s->granted->rt_throttling_off = true;
    else if (st == RTS_ENOTSUP)
        s->granted->not_applicable |= RTS_SETTING_RT_THROTTLING;
    else
        rts_warn(s->warnings, "RT throttling not lifted (%s): it stays as the system has it", rts_status_str(st));
}

void rts_rtsetup_apply(const rts_rtconfig *want, bool refuse_privilege, const rts_sysinfo *sys,
                       rts_rtconfig *granted, rts_warnings *warnings)
{
    setup s = { .want = want, .refuse_privilege = refuse_privilege, .granted = granted, .warnings = warnings };
    memcpy(granted->cpus, want->cpus, sizeof want->cpus);
    granted->ncpus = want->ncpus; /* validated by the CLI: allowed CPUs */
    granted->not_applicable = 0;
    setup_memory(&s);
    setup_policy(&s);
    setup_cpu_latency(&s);
    setup_rt_throttling(&s);
    rts_warn_rt_throttling(sys, granted, warnings);
}

void rts_rtsetup_release(void)
{
    char why[240];
    if (!rts_settings_restore(0, why, sizeof why))
        rts_text_fmt(rts_diag_write, "rtscope-probe: %s\n", why);
}
