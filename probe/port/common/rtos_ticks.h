/*
 * The ticks a kernel that counts time in ticks (FreeRTOS, ThreadX) must wait
 * for at least ns: it ends a wait of n ticks at the n-th tick interrupt,
 * which may be only n - 1 periods away, hence one more. Every timed wait
 * converts its timeout: up to about 4 s (the benches' bounded waits) it
 * divides in 32 bits, one instruction where a 32-bit CPU divides 64 bits in
 * a library call of hundreds. Each port clamps the result to its kernel's
 * longest finite wait, in its kernel's type: a clamp shared in 64 bits
 * compiled the timed waits to other instructions, and under instruction
 * counting that moved how many samples a bench fits in its time.
 */
#ifndef RTSCOPE_RTOS_TICKS_H
#define RTSCOPE_RTOS_TICKS_H

#include <stdint.h>

static inline uint64_t rts_ticks_at_least(uint64_t ns, uint32_t ns_per_tick)
{
    return ns <= UINT32_MAX - ns_per_tick ? ((uint32_t)ns + ns_per_tick - 1) / ns_per_tick + 1
                                          : (ns + ns_per_tick - 1) / ns_per_tick + 1;
}

#endif
