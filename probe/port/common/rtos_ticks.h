/*
 * The timed waits of a kernel that counts time in ticks (FreeRTOS,
 * ThreadX). A kernel ends a wait of n ticks at the n-th tick interrupt,
 * which may be only n - 1 periods away, hence one more. Every timed wait
 * converts its timeout: up to about 4 s (the benches' bounded waits) it divides in
 * 32 bits, one instruction where a 32-bit CPU divides 64 bits in a library
 * call of hundreds. Each port clamps the ticks to its kernel's longest
 * finite wait, in its kernel's type: the measured paths' instructions
 * stay the kernel's own (a shared clamp in 64 bits changed them, and with
 * them the samples a bench fits in its time under instruction counting).
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

/* The status of a timed wait that did not get what it waited for. */
static inline rts_status rts_wait_missed(uint64_t timeout_ns) { return timeout_ns == 0 ? RTS_EAGAIN : RTS_ETIMEDOUT; }

#endif
