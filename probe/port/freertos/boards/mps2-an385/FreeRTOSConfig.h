/*
 * FreeRTOS on QEMU's mps2-an385 (Cortex-M3, portable/GCC/ARM_CM3): the
 * board's facts. What rtscope sets, and the configuration chosen at build
 * (dev or bench), is port_config.h's, included at the end.
 *
 * The tick comes from SysTick, which QEMU clocks with the board's 25 MHz
 * system clock; rtscope's own time is a CMSDK timer (board_time.h).
 */
#ifndef FREERTOS_CONFIG_H
#define FREERTOS_CONFIG_H

#define configCPU_CLOCK_HZ                      25000000UL
#define configTICK_TYPE_WIDTH_IN_BITS           TICK_TYPE_WIDTH_32_BITS
/* In words: the idle task's stack. */
#define configMINIMAL_STACK_SIZE                256U

/* The heap (heap_4) is ucHeap, which the board places in its 16 MiB PSRAM
 * (board_kernel.c, mps2-an385.ld). */
#define configAPPLICATION_ALLOCATED_HEAP        1
#define configTOTAL_HEAP_SIZE                   ((size_t)BOARD_KERNEL_HEAP_BYTES) /* board.mk: by the build */

/* The C library is newlib: each task has newlib's state of its own (errno,
 * number formatting's buffers), switched with the task. */
#define configUSE_NEWLIB_REENTRANT              1

/* Interrupt priorities (the upper bits of an 8-bit field; QEMU implements
 * them all). The board's interrupts run at BOARD_IRQ_PRIORITY
 * (board_kernel.h), below configMAX_SYSCALL_INTERRUPT_PRIORITY, so they
 * may call ...FromISR. */
#define configKERNEL_INTERRUPT_PRIORITY         0xE0
#define configMAX_SYSCALL_INTERRUPT_PRIORITY    0xA0

#include "port_config.h"

#endif
