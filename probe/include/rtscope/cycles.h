/* The CPU's cycle counter, read inline (an instruction, not an OS call). */
#ifndef RTSCOPE_CYCLES_H
#define RTSCOPE_CYCLES_H

#include <stdint.h>

/* What the counter counts, as the result's timing.cycle_counter_kind says:
 * "cpu-cycles" (the CPU's cycles; x86's invariant TSC counts them at the
 * nominal frequency) or "timer" (a fixed-rate clock, not the CPU's cycles:
 * a figure in its ticks is a time, not a cost in cycles). rts_cycles_hz()
 * is the rate the hardware states, 0 where it states none. */
#if defined(__x86_64__)
#define RTS_CYCLE_COUNTER_NAME "rdtscp"
#define RTS_CYCLE_COUNTER_KIND "cpu-cycles"
static inline uint64_t rts_cycles_hz(void) { return 0; }
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
#define RTS_CYCLE_COUNTER_KIND "timer"
static inline uint64_t rts_cycles_hz(void)
{
    uint64_t hz;
    __asm__ volatile("mrs %0, cntfrq_el0" : "=r"(hz));
    return hz;
}
static inline uint64_t rts_cycles(void)
{
    uint64_t v;
    __asm__ volatile("isb; mrs %0, cntvct_el0" : "=r"(v)::"memory");
    return v;
}
#else
#define RTS_CYCLE_COUNTER_NAME NULL
#define RTS_CYCLE_COUNTER_KIND NULL
static inline uint64_t rts_cycles_hz(void) { return 0; }
static inline uint64_t rts_cycles(void) { return 0; }
#endif

#endif
