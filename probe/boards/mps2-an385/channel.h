/*
 * What the mps2-an385's board.c gives the channel to the host that
 * board.mk's LINK chooses: channel_semihosting.c (QEMU's semihosting: the
 * default) or channel_uart.c (frames on the UART, for a board with no
 * semihosting host: boards/common/frame.h). The channel implements the
 * request, console, result and exit functions of board.h, and
 * board_random_bytes.
 */
#ifndef RTSCOPE_MPS2_AN385_CHANNEL_H
#define RTSCOPE_MPS2_AN385_CHANNEL_H

#include <stddef.h>

/* Bytes to UART0, waiting for room for each (interrupts may be off). */
void board_uart_write(const char *text, size_t n);

/* Wait until UART0 has sent what it holds. */
void board_uart_drain(void);

/* A byte UART0 received, or -1 when none is waiting. */
int board_uart_read(void);

#endif
