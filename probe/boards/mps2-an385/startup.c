/*
 * Reset and the vector table of the mps2-an385 image. QEMU loads every
 * section of the ELF file where it belongs, so reset only zeroes .bss and
 * calls main (the probe is C: no constructors to run); a return from main
 * ends the program with main's status. Faults are reported by name with where they
 * happened (board_fault) instead of locking up, so that a faulting guest
 * is a failed run, not a hang.
 */
#include <stdint.h>
#include <string.h>

#include "board.h"
#include "board_kernel.h"
#include "board_vectors.h"

extern uint32_t board_bss_start[], board_bss_end[], board_main_stack_top[];
/* The port's main (port_freertos.c, port_threadx.c), which starts the
 * kernel; port.mk renames the probe's own main, with every source of the
 * build. */
#undef main
extern int main(void);

/* Reset: .bss zeroed, then the port's main; its status ends the program. */
void board_reset_handler(void);
/* The kernel's own exception handlers, named by the port's board_kernel.h. */
void BOARD_KERNEL_SVC_HANDLER(void);
void BOARD_KERNEL_PENDSV_HANDLER(void);
void BOARD_KERNEL_SYSTICK_HANDLER(void);

void board_reset_handler(void)
{
    memset(board_bss_start, 0, (size_t)((char *)board_bss_end - (char *)board_bss_start));
    board_exit(main());
}

/* Each fault handler passes the stack the exception frame was pushed on
 * (bit 2 of the exception return value: 1 for a task's, 0 for the main
 * stack) to board_fault with its name. */
#define FAULT_HANDLER(handler, text)                                              \
    __attribute__((used)) static const char handler##_name[] = text;              \
    __attribute__((naked)) static void handler(void)                              \
    {                                                                             \
        __asm__ volatile("tst lr, #4\n\t"                                         \
                         "ite eq\n\t"                                             \
                         "mrseq r1, msp\n\t"                                      \
                         "mrsne r1, psp\n\t"                                      \
                         "ldr r0, =" #handler "_name\n\t"                         \
                         "b board_fault\n\t"                                      \
                         ".ltorg");                                               \
    }

FAULT_HANDLER(nmi_handler, "NMI")
FAULT_HANDLER(hard_fault_handler, "HardFault")
FAULT_HANDLER(mem_manage_handler, "MemManage")
FAULT_HANDLER(bus_fault_handler, "BusFault")
FAULT_HANDLER(usage_fault_handler, "UsageFault")
FAULT_HANDLER(unexpected_handler, "an unexpected interrupt")

#define UNEXPECTED_4 unexpected_handler, unexpected_handler, unexpected_handler, unexpected_handler

/* Cortex-M3 vector table: the initial main stack, the 15 system exceptions,
 * then the board's 32 external interrupts (8 and 9 the CMSDK timers, 31
 * the software interrupt, the rest not expected). */
__attribute__((section(".vectors"), used)) static void (*const vectors[16 + 32])(void) = {
    (void (*)(void))board_main_stack_top,
    board_reset_handler,
    nmi_handler,
    hard_fault_handler,
    mem_manage_handler,
    bus_fault_handler,
    usage_fault_handler,
    0, 0, 0, 0,
    BOARD_KERNEL_SVC_HANDLER,
    unexpected_handler, /* debug monitor */
    0,
    BOARD_KERNEL_PENDSV_HANDLER,
    BOARD_KERNEL_SYSTICK_HANDLER,
    UNEXPECTED_4, UNEXPECTED_4,                                 /* IRQ 0-7 */
    board_timer0_handler, board_timer1_handler,                 /* IRQ 8-9 */
    unexpected_handler, unexpected_handler, UNEXPECTED_4,       /* IRQ 10-15 */
    UNEXPECTED_4, UNEXPECTED_4, UNEXPECTED_4,                   /* IRQ 16-27 */
    unexpected_handler, unexpected_handler, unexpected_handler, /* IRQ 28-30 */
    board_soft_irq_handler,                                     /* IRQ 31 */
};
