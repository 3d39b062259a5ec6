/*
 * The mps2-an385 board's exception and interrupt handlers, which startup.c
 * puts in the vector table and board.c defines. Each runs in handler mode,
 * at BOARD_IRQ_PRIORITY (the port's board_kernel.h) for the interrupts.
 */
#ifndef RTSCOPE_MPS2_AN385_BOARD_VECTORS_H
#define RTSCOPE_MPS2_AN385_BOARD_VECTORS_H

#include <stdint.h>

/* Timer 0 reached 0: one more wrap of the clock (board_time.h). */
void board_timer0_handler(void);

/* Timer 1 expired: the periodic interrupt's handler with its planned and
 * entry times (board_timer_irq_start). */
void board_timer1_handler(void);

/* IRQ 31 was set pending: the software interrupt's handler
 * (board_soft_irq_raise). */
void board_soft_irq_handler(void);

/* A fault named name, with the exception frame the processor pushed
 * (r0-r3, r12, lr, pc, xpsr): reported in one line on the console, then
 * the program ends with the fault status. Never returns. */
_Noreturn void board_fault(const char *name, const uint32_t *frame);

#endif
