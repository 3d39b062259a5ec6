/*
 * What the ThreadX port needs of its folder for each board
 * (boards/NAME/board_kernel.c or interrupts.c), beside what board.h asks
 * of every board.
 */
#ifndef RTSCOPE_THREADX_BOARD_GLUE_H
#define RTSCOPE_THREADX_BOARD_GLUE_H

#include <stddef.h>

/* The memory of the kernel's byte pool, the probe's heap: bytes of it at
 * *base, for the life of the program. Called once, before the first
 * thread; ends the run (board_fatal) where the board has none. */
void rts_threadx_heap_memory(void **base, size_t *bytes);

#endif
