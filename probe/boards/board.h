/*
 * What a board gives an RTOS port of rtscope (port/freertos/, port/threadx/).
 *
 * Each port is written once against its kernel's API; everything that
 * depends on the hardware (or, for a kernel's host simulator, on the host)
 * is behind this contract, one implementation per board, shared by every
 * kernel, under boards/NAME/:
 *   boards/mps2-an385/  QEMU's Cortex-M3 board: UART, semihosting, the
 *                       CMSDK timers and a spare IRQ of the NVIC;
 *   boards/posix-sim/   a kernel's Linux simulator (FreeRTOS's POSIX port,
 *                       ThreadX's ports/linux/gnu): the host's stdio, clock
 *                       and signals (its timings measure the simulator,
 *                       never an RTOS).
 * Each board directory also holds board.mk (port/PORT/port.mk says what it
 * sets) and board_time.h, which defines
 *   static inline uint64_t board_time_ns(void);
 * the free-running clock of sub-tick resolution that rts_time_ns reads.
 * What a board needs of a kernel is the port's, in port/PORT/boards/NAME/:
 * the kernel's configuration (FreeRTOSConfig.h, tx_user.h), kernel.mk (the
 * kernel's port for the CPU) and board_kernel.h where the board asks for
 * it (mps2-an385: the kernel's exception handlers, the board's interrupt
 * priority); and the two functions at the end of this file.
 */
#ifndef RTSCOPE_BOARD_H
#define RTSCOPE_BOARD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "board_time.h"
#include "rtscope/port.h"

/* Bring the board up (clocks, console, timers) before the scheduler starts. */
void board_init(void);

/* The probe's command line, as main's argc/argv (argv[0] first). The
 * mps2-an385 board reads it from semihosting (SYS_GET_CMDLINE, QEMU's
 * -semihosting-config arg=…); the simulator passes the process's own.
 * The strings live for the life of the program. */
int board_args(char ***argv);

/* Short board name for the result ("mps2-an385", "posix-sim"). */
const char *board_name(void);

/* Fill what the board knows of itself (cpu_model, arch, cpu_count 1,
 * clocksource, virtualization "qemu" or "simulator"…); the port fills the
 * OS fields (os "FreeRTOS" or "ThreadX", kernel_release its version). */
void board_sysinfo(rts_sysinfo *info);

/* Name and resolution (ns) of the clock board_time_ns reads. */
const char *board_clock_name(void);
uint64_t board_clock_resolution_ns(void);

/* Write bytes to the console (UART or stdout) and to diagnostics (the
 * console on a board, stderr on the simulator). Never blocks for long;
 * callable from any task, not from an interrupt. */
void board_console_write(const char *text, size_t n);
void board_diag_write(const char *text, size_t n);

/* The one result channel (semihosting file ":result" or similar on the
 * board, a file or stdout on the simulator): open for dest, write, commit
 * (the document is whole), or abort. Return 0 on success, else -1 with a
 * line in why. */
int board_result_open(const char *dest, char *why, size_t whysize);
int board_result_write(const void *data, size_t n);
int board_result_commit(char *why, size_t whysize);
void board_result_abort(void);

/* End the program with status, after console output has drained: on the
 * board semihosting's SYS_EXIT_EXTENDED (QEMU exits with status), on the
 * simulator exit(). Callable from any task. */
_Noreturn void board_exit(int status);

/* A software-triggered interrupt (a spare IRQ set pending through the
 * NVIC). handler runs in interrupt context and may call the kernel's
 * interrupt-safe API. raise returns after the handler has run. RTS_ENOTSUP
 * where the board has none. On a host simulator what an interrupt is
 * belongs to the kernel's simulator: the port gives these two there
 * (port/PORT/boards/posix-sim/). */
rts_status board_soft_irq_register(void (*handler)(void *arg), void *arg);
rts_status board_soft_irq_raise(void);

/* A periodic hardware timer interrupt, with the semantics of
 * rts_timer_irq_start/stop in rtscope/port.h (planned_ns of the expiry it
 * serves, entered_ns read first thing in the handler; merged expiries
 * counted as missed). One at a time. */
rts_status board_timer_irq_start(uint64_t first_ns, uint64_t period_ns,
                                 void (*handler)(void *arg, uint64_t planned_ns, uint64_t entered_ns),
                                 void *arg);
rts_status board_timer_irq_stop(uint64_t *missed);

/* Fill buf with n bytes that differ between runs where the board can (a
 * fixed sequence is fine under instruction counting: run ids only). */
void board_random_bytes(void *buf, size_t n);

/* Fill buf with the next n bytes of the xorshift32 sequence whose state
 * (not 0) is *state: for a board_random_bytes with nothing better to draw
 * from (board_services.c). */
void board_xorshift_bytes(uint32_t *state, void *buf, size_t n);

/* The kernel found itself broken (a failed assertion, a thread's stack
 * overflow): text (one line, no newline) on the console after the board's
 * prefix ("rtscope-probe: guest fault: " on a board), with nothing else
 * running, then the end of the program with a status that is none of the
 * probe's own (0 complete, 1 failed, 2 bad input). Callable from anywhere. */
_Noreturn void board_fatal(const char *text);

/* Given by the port, for the board: hold the scheduler (no other thread
 * runs until the release; interrupts still do), nestable, from a thread;
 * before the kernel runs, nothing to hold. The board holds it around its
 * console writes and the C library's heap. */
void port_sched_hold(void);
void port_sched_release(void);

/* Given by boards/board_services.c, for the port. The capabilities
 * (rtscope/port.h) a port has by the board alone: affinity on its one CPU,
 * the system's description, the periodic timer interrupt, and the software
 * interrupt where the board has one, asked by registering soft_irq_entry,
 * the port's entry for it. */
unsigned board_caps(void (*soft_irq_entry)(void *arg));

/* Run the program on the board's command line (the probe's main, or a C
 * test's) and end the board with its exit status: the port's first thread. */
_Noreturn void board_run_program(void);

#endif
