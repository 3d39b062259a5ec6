/*
 * What the mps2-an385 board (boards/mps2-an385/) needs of FreeRTOS: the
 * Cortex-M3 port's exception handlers (portable/GCC/ARM_CM3/port.c), which
 * the board's vector table installs by name, and the priority of the
 * board's interrupts (upper bits of an 8-bit field): below
 * configMAX_SYSCALL_INTERRUPT_PRIORITY (FreeRTOSConfig.h), so that their
 * handlers may call the ...FromISR API.
 */
#ifndef RTSCOPE_FREERTOS_MPS2_AN385_BOARD_KERNEL_H
#define RTSCOPE_FREERTOS_MPS2_AN385_BOARD_KERNEL_H

#define BOARD_KERNEL_SVC_HANDLER vPortSVCHandler
#define BOARD_KERNEL_PENDSV_HANDLER xPortPendSVHandler
#define BOARD_KERNEL_SYSTICK_HANDLER xPortSysTickHandler
#define BOARD_IRQ_PRIORITY 0xC0

#endif
