/*
 * The mps2-an385's software interrupt, pended inline: IRQ 31 (wired to
 * nothing on this board) set pending in the NVIC. Pending an enabled
 * interrupt of a priority above the caller's is taken after the barriers,
 * before the next instruction. board.c's board_soft_irq_raise is this, and
 * the RTOS ports' inline raise (boards/port_inline.h) too.
 */
#ifndef RTSCOPE_MPS2_AN385_BOARD_SOFT_IRQ_H
#define RTSCOPE_MPS2_AN385_BOARD_SOFT_IRQ_H

#include <stdint.h>

#define BOARD_IRQ_SOFT 31u
#define BOARD_NVIC_ISPR0 (*(volatile uint32_t *)0xE000E200u)

static inline void board_soft_irq_pend(void)
{
    BOARD_NVIC_ISPR0 = 1u << BOARD_IRQ_SOFT;
    __asm__ volatile("dsb\n\tisb" ::: "memory");
}

#endif
