/*
 * The mps2-an385's clock for rts_time_ns: CMSDK APB timer 0, a 32-bit
 * down-counter of the 25 MHz system clock (40 ns a count), running free
 * from 0xFFFFFFFF and extended to 64 bits by counting its wraps in its
 * interrupt (board.c). Under QEMU's -icount the count follows the
 * instruction counter, so the clock is instruction time.
 */
#ifndef RTSCOPE_MPS2_AN385_BOARD_TIME_H
#define RTSCOPE_MPS2_AN385_BOARD_TIME_H

#include <stdint.h>

#define BOARD_SYSCLK_HZ 25000000U
#define BOARD_NS_PER_COUNT 40U /* 1e9 / BOARD_SYSCLK_HZ, exact */

/* CMSDK APB timer registers (Cortex-M System Design Kit TRM, DDI0479C). */
typedef struct {
    volatile uint32_t ctrl;      /* bit 0 enable, bit 3 interrupt enable */
    volatile uint32_t value;     /* current count, counting down */
    volatile uint32_t reload;    /* the count taken after reaching 0 */
    volatile uint32_t intstatus; /* bit 0 set on reaching 0; write 1 to clear */
} board_cmsdk_timer;

#define BOARD_CLOCK_TIMER ((board_cmsdk_timer *)0x40000000u)
#define BOARD_TIMER_INT 1u

/* Wraps of the clock timer taken by its interrupt handler (board.c). */
extern volatile uint32_t board_clock_wraps;

/* Counts since the clock started, 64 bits. The count holds at 0 for one
 * count before reloading, and its interrupt is raised on reaching 0: the
 * 0 is taken as the first count of the next wrap (elapsed = -value mod
 * 2^32), so that a wrap pending but not yet handled is one more wrap.
 * Interrupts are masked for the three reads, so the handler cannot count
 * the wrap between them; the status is read on both sides of the value,
 * and a wrap between them is read again after it. */
static inline uint64_t board_clock_counts(void)
{
    uint32_t primask;
    __asm__ volatile("mrs %0, primask\n\tcpsid i" : "=r"(primask)::"memory");
    uint32_t wraps = board_clock_wraps;
    uint32_t pending_before = BOARD_CLOCK_TIMER->intstatus & BOARD_TIMER_INT;
    uint32_t value = BOARD_CLOCK_TIMER->value;
    uint32_t pending_after = BOARD_CLOCK_TIMER->intstatus & BOARD_TIMER_INT;
    if (pending_after != pending_before)
        value = BOARD_CLOCK_TIMER->value;
    __asm__ volatile("msr primask, %0" ::"r"(primask) : "memory");
    return ((uint64_t)(wraps + pending_after) << 32) | (uint32_t)(0u - value);
}

/* Nanoseconds since the clock started (board_init), at 40 ns resolution. */
static inline uint64_t board_time_ns(void)
{
    return board_clock_counts() * BOARD_NS_PER_COUNT;
}

#endif
