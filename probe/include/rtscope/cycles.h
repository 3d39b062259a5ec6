/* The CPU's cycle counter, read inline (an instruction, not an OS call). */
#ifndef RTSCOPE_CYCLES_H
#define RTSCOPE_CYCLES_H

#include <stdint.h>

#if defined(__x86_64__)
#define RTS_CYCLE_COUNTER_NAME "rdtscp"
/* rdtscp waits for earlier instructions to finish, so the measured code
 * cannot leak past the stamp. */
static inline uint64_t rts_cycles(void)
{
    uint32_t lo, hi, aux;
    __asm__ volatile("rdtscp" : "=a"(lo), "=d"(hi), "=c"(aux)::"memory");
    return ((uint64_t)hi << 32) | lo;
}
#elif defined(__aarch64__)
/* The generic timer: fixed frequency (often 24–100 MHz), not core cycles. */
#define RTS_CYCLE_COUNTER_NAME "cntvct_el0"
static inline uint64_t rts_cycles(void)
{
    uint64_t v;
    __asm__ volatile("isb; mrs %0, cntvct_el0" : "=r"(v)::"memory");
    return v;
}
#else
#define RTS_CYCLE_COUNTER_NAME NULL
static inline uint64_t rts_cycles(void) { return 0; }
#endif

#endif
