/* Real-time setup: what a run asks of the platform, and what it grants. It
 * knows nothing of the run (run.c holds the outcome): the run sits above it. */
#ifndef RTSCOPE_RTSETUP_H
#define RTSCOPE_RTSETUP_H

#include <stdbool.h>

#include "rtscope/port.h"
#include "text.h"

/* Settings a platform may not have at all (the port answers RTS_ENOTSUP):
 * the result records them as not applicable, not as refused. */
enum {
    RTS_SETTING_MLOCKALL = 1u << 0,    /* nothing pages (a microcontroller) */
    RTS_SETTING_CPU_LATENCY = 1u << 1, /* no control of the CPU's idle states */
    RTS_SETTING_RT_THROTTLING = 1u << 2 /* no throttling of real-time threads to lift */
};

typedef struct {
    rts_policy policy;
    int priority;
    int cpus[RTS_MAX_CPUS];
    int ncpus;                /* 0: not pinned */
    bool mlockall;
    bool stack_prefault;
    int cpu_latency_us;       /* wake-up latency limit; -1: none */
    bool rt_throttling_off;   /* RT throttling lifted for the run (granted: it was, or was off already) */
    unsigned not_applicable;  /* RTS_SETTING_* this platform does not have (what was granted only) */
} rts_rtconfig;

/* Apply the setup want asks for (memory lock, scheduling policy, CPU
 * wake-up latency limit, RT throttling lifted; with refuse_privilege none
 * of it) as far as the
 * platform grants it. granted then holds what was granted and which
 * settings the platform does not have, and warnings say what was refused
 * and what that does to the figures (also RT throttling, from sys). The
 * calling thread tries the policy and returns to normal priority: it
 * supervises, it must not compete with the measuring threads. Call once,
 * before any measuring thread starts. */
void rts_rtsetup_apply(const rts_rtconfig *want, bool refuse_privilege, const rts_sysinfo *sys,
                       rts_rtconfig *granted, rts_warnings *warnings);

/* Warn of RT throttling as the run was granted it (a real-time thread that
 * keeps a CPU busy is stopped for the rest of each period; lifted, the fair
 * server of newer kernels still stops it): throttle.c; nothing on an RTOS. */
void rts_warn_rt_throttling(const rts_sysinfo *sys, const rts_rtconfig *granted, rts_warnings *warnings);

/* Put back every system setting the run changed (RT throttling, a bench's
 * that are left): rts_settings_restore; the port also does at any other end
 * of the process. */
void rts_rtsetup_release(void);

#endif
