/* Template port: the inline monotonic clock (see rtscope/port.h). */
#ifndef RTSCOPE_PORT_TIME_H
#define RTSCOPE_PORT_TIME_H

#include <stdint.h>

/* Return a monotonic time in ns. It is read in every measured path, so keep
 * it to a register read and a multiply:
 *   FreeRTOS: a free-running hardware timer (e.g. DWT->CYCCNT or a 32-bit
 *             timer extended to 64 bits), scaled to ns;
 *   Zephyr:   k_cyc_to_ns_floor64(k_cycle_get_64()).
 * The template has no clock and returns 0, which makes every figure 0. */
static inline uint64_t rts_time_ns(void) { return 0; }

#endif
