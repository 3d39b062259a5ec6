/* Real-time setup: what the run asks of the platform, and what it grants. */
#ifndef RTSCOPE_RTSETUP_H
#define RTSCOPE_RTSETUP_H

#include "run.h"

/* Apply the setup the run requests (memory lock, scheduling policy, CPU
 * wake-up latency limit; none of it with --refuse-privilege) as far as the
 * platform grants it. run->granted then holds what was granted, and the
 * run's warnings say what was not and what that does to the figures. The
 * calling thread tries the policy and returns to normal priority: it
 * supervises, it must not compete with the measuring threads. Call once,
 * before any measuring thread starts; run->sys must be read already. */
void rts_rtsetup_apply(rts_run *run);

#endif
