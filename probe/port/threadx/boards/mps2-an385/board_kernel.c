/*
 * ThreadX on the mps2-an385 board: the low-level start-up the kernel's
 * Cortex-M3 port leaves to the user (_tx_initialize_low_level, called by
 * tx_kernel_enter with interrupts masked), the memory of the byte pool the
 * port makes its heap, and the SVC nobody makes.
 */
#include <stddef.h>
#include <stdint.h>

#include "tx_api.h"

#include "board.h"
#include "board_glue.h"
#include "board_kernel.h"
#include "board_time.h"

/* The kernel's (tx_initialize.h, tx_thread.h), set here as its example
 * start-up sets them. */
extern VOID *_tx_initialize_unused_memory;
extern VOID *_tx_thread_system_stack_ptr;
/* The handler stack's top (mps2-an385.ld). */
extern uint32_t board_main_stack_top[];

#define SYST_CSR (*(volatile uint32_t *)0xE000E010u)
#define SYST_RVR (*(volatile uint32_t *)0xE000E014u)
#define SYST_CVR (*(volatile uint32_t *)0xE000E018u)
#define SYST_CSR_PROCESSOR_CLOCK_INT_ENABLE 7u
#define SCB_SHPR2 (*(volatile uint32_t *)0xE000ED1Cu) /* SVC in bits 31..24 */
#define SCB_SHPR3 (*(volatile uint32_t *)0xE000ED20u) /* SysTick 31..24, PendSV 23..16 */
#define TICK_PRIORITY 0xE0u
#define LOWEST_PRIORITY 0xFFu

/* The byte pool's memory, in the section the board's linker script places
 * in its KERNEL_HEAP region: as much as FreeRTOS's heap there, the size
 * board.mk gives the build (15 MiB of the PSRAM, or MCU=small's share of
 * its 48 KiB of RAM). */
#define HEAP_BYTES ((size_t)BOARD_KERNEL_HEAP_BYTES)
static UCHAR heap_memory[HEAP_BYTES] __attribute__((section(".rtos_heap"), aligned(8)));

void rts_threadx_heap_memory(void **base, size_t *bytes)
{
    *base = heap_memory;
    *bytes = sizeof heap_memory;
}

/* The tick from SysTick on the 25 MHz system clock; SVC and PendSV at the
 * lowest priority, as the port requires, the tick just above them. */
VOID _tx_initialize_low_level(VOID);
VOID _tx_initialize_low_level(VOID)
{
    __asm__ volatile("cpsid i" ::: "memory");
    _tx_thread_system_stack_ptr = board_main_stack_top;
    _tx_initialize_unused_memory = heap_memory; /* tx_application_define takes the pool whole */
    SCB_SHPR2 = LOWEST_PRIORITY << 24;
    SCB_SHPR3 = TICK_PRIORITY << 24 | LOWEST_PRIORITY << 16;
    SYST_RVR = BOARD_SYSCLK_HZ / TX_TIMER_TICKS_PER_SECOND - 1;
    SYST_CVR = 0;
    SYST_CSR = SYST_CSR_PROCESSOR_CLOCK_INT_ENABLE;
}

void rts_threadx_svc_handler(void);
void rts_threadx_svc_handler(void) { board_fatal("an SVC, which ThreadX never makes"); }
