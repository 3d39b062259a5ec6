/*
 * What the mps2-an385 board (boards/mps2-an385/) needs of ThreadX: the
 * Cortex-M3 port's exception handlers, which the board's vector table
 * installs by name (ports/cortex_m3/gnu: PendSV switches threads; the tick
 * is _tx_timer_interrupt itself, an ordinary function a Cortex-M can take
 * as a handler; ThreadX makes no SVC, board_kernel.c reports one), and the
 * priority of the board's interrupts (upper bits of an 8-bit field): above
 * the tick's (0xE0) and PendSV's (0xFF, the lowest, as the port requires).
 * ThreadX masks every interrupt in its critical sections (PRIMASK), so any
 * of them may call its services.
 */
#ifndef RTSCOPE_THREADX_MPS2_AN385_BOARD_KERNEL_H
#define RTSCOPE_THREADX_MPS2_AN385_BOARD_KERNEL_H

#define BOARD_KERNEL_SVC_HANDLER rts_threadx_svc_handler
#define BOARD_KERNEL_PENDSV_HANDLER __tx_PendSVHandler
#define BOARD_KERNEL_SYSTICK_HANDLER _tx_timer_interrupt
#define BOARD_IRQ_PRIORITY 0xC0

#endif
