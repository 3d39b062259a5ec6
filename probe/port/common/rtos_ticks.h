/*
 * The timed waits of a kernel that counts time in ticks (FreeRTOS,
 * ThreadX), each port giving its kernel's tick period and its "forever"
 * (the wait without bound; the longest finite wait is one tick less).
 * A kernel ends a wait of n ticks at the n-th tick interrupt, which may be
 * only n - 1 periods away, hence one more. Every timed wait converts its
 * timeout: up to about 4 s (the benches' bounded waits) it divides in
 * 32 bits, one instruction where a 32-bit CPU divides 64 bits in a library
 * call of hundreds.
 */
#ifndef RTSCOPE_RTOS_TICKS_H
#define RTSCOPE_RTOS_TICKS_H

#include <stdint.h>

#include "rtscope/port.h"

/* The ticks to wait for at least ns. */
static inline uint64_t rts_ticks_at_least(uint64_t ns, uint32_t ns_per_tick)
{
    return ns <= UINT32_MAX - ns_per_tick ? ((uint32_t)ns + ns_per_tick - 1) / ns_per_tick + 1
                                          : (ns + ns_per_tick - 1) / ns_per_tick + 1;
}

/* The ticks to wait for at least ns, within the kernel's longest finite wait. */
static inline uint64_t rts_ticks_within(uint64_t ns, uint32_t ns_per_tick, uint64_t forever)
{
    uint64_t ticks = rts_ticks_at_least(ns, ns_per_tick);
    return ticks >= forever ? forever - 1 : ticks;
}

/* A port timeout as the ticks of the kernel's wait: 0 stays 0 (either
 * kernel's "do not wait"), RTS_FOREVER is the kernel's forever. */
static inline uint64_t rts_wait_ticks(uint64_t timeout_ns, uint32_t ns_per_tick, uint64_t forever)
{
    return timeout_ns == 0 ? 0 : timeout_ns == RTS_FOREVER ? forever : rts_ticks_within(timeout_ns, ns_per_tick, forever);
}

/* The status of a timed wait that did not get what it waited for. */
static inline rts_status rts_wait_missed(uint64_t timeout_ns) { return timeout_ns == 0 ? RTS_EAGAIN : RTS_ETIMEDOUT; }

#endif
