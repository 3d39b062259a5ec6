/* FreeRTOS on the mps2-an385 board: heap_4's memory, in the section the
 * board's linker script places in its 16 MiB PSRAM (mps2-an385.ld). */
#include <stdint.h>

#include "FreeRTOS.h"
#include "board_kernel.h"

#if BOARD_IRQ_PRIORITY <= configMAX_SYSCALL_INTERRUPT_PRIORITY
#error "the board's interrupts must be below configMAX_SYSCALL_INTERRUPT_PRIORITY to call the ...FromISR API"
#endif

uint8_t ucHeap[configTOTAL_HEAP_SIZE] __attribute__((section(".rtos_heap"), aligned(8)));
