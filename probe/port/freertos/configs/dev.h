/*
 * The dev configuration of FreeRTOS (make CONFIG=dev, the default): the
 * kernel as one develops on it, checking itself. Included by port_config.h
 * after the board's facts; docs/rtos.md compares it with bench.h.
 */
#ifndef RTSCOPE_FREERTOS_CONFIG_POLICY_H
#define RTSCOPE_FREERTOS_CONFIG_POLICY_H

#define RTS_FREERTOS_CONFIG                     "dev"

/* A broken kernel invariant ends the run with its place (the port's
 * rts_freertos_assert_failed, through the board's board_fatal). */
#ifndef __ASSEMBLER__
void rts_freertos_assert_failed(const char *file, int line);
#endif
#define configASSERT(condition) do { if (!(condition)) rts_freertos_assert_failed(__FILE__, __LINE__); } while (0)

/* A stack overflow ends the run (the port's hook). The check is the stack
 * pointer's at each switch (method 1, a few instructions): method 2, the
 * trace facility and the high-water mark would have the kernel fill every
 * new task's stack with a pattern, a memset of the whole stack inside
 * thread.create (117 us of a 117 us create with 256 KiB stacks at shift 0). */
#define configCHECK_FOR_STACK_OVERFLOW          1
#define configUSE_TRACE_FACILITY                0

/* The port's switch counter (port_trace.h): rts_self_switches counts, and
 * the benches check the switches they claim (ctxsw.*'s switches per turn). */
#define RTS_FREERTOS_SWITCH_COUNTER             1

/* The generic task selection over every priority rtscope has: its 1..99
 * one to one as 2..100, above "other" (1) and the idle task (0). */
#define configUSE_PORT_OPTIMISED_TASK_SELECTION 0
#define configMAX_PRIORITIES                    101

#endif
