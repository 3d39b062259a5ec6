/*
 * The scheduling setup of rtscope/port.h on a single-CPU microcontroller,
 * for ports that have nothing more to say: CPU 0 is the only one (every
 * thread runs there, so pinning to it is exact and any other is refused),
 * memory never pages and there is no idle-state control to hold (neither
 * setting exists: RTS_ENOTSUP, which a result records as not applicable).
 * An SMP RTOS port pins with its own call instead (vTaskCoreAffinitySet,
 * k_thread_cpu_pin) and drops this file.
 */
#include "rtscope/port.h"

int rts_cpu_count(void) { return 1; }

bool rts_cpu_allowed(int cpu) { return cpu == 0; }

rts_status rts_self_set_cpu(int cpu) { return cpu <= 0 ? RTS_OK : RTS_EINVAL; }

int rts_self_cpu(void) { return 0; }

/* Memory never pages: there is no such setting. */
rts_status rts_mem_lock_all(void) { return RTS_ENOTSUP; }

rts_status rts_cpu_latency_limit(int us)
{
    (void)us;
    return RTS_ENOTSUP;
}

/* A single CPU's RTOS schedules by priority alone: no throttling to lift. */
rts_status rts_rt_throttling_lift(void) { return RTS_ENOTSUP; }

void rts_stack_prefault(size_t bytes) { (void)bytes; }
