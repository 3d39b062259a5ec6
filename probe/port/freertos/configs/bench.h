/*
 * The bench configuration of FreeRTOS (make CONFIG=bench): the kernel as
 * benchmarks are run on it, doing nothing a measured operation does not
 * need. Included by port_config.h after the board's facts;
 * docs/rtos.md compares it with dev.h.
 */
#ifndef RTSCOPE_FREERTOS_CONFIG_POLICY_H
#define RTSCOPE_FREERTOS_CONFIG_POLICY_H

#define RTS_FREERTOS_CONFIG                     "bench"

/* No assertions (configASSERT left to the kernel's empty default), no
 * stack checking and no stack filling, no trace facility, and no hooks:
 * the port's switch counter (port_trace.h) is off, as a kernel measured
 * by Thread-Metric has none (about 13 instructions a switch, a fifth of
 * the suite's tm.coop turn), so rts_self_switches says -1, "not counted". */
#define configCHECK_FOR_STACK_OVERFLOW          0
#define configUSE_TRACE_FACILITY                0
#define RTS_FREERTOS_SWITCH_COUNTER             0

/* The kernel port's own task selection: its optimised one where it has one
 * (portmacro.h: a count-leading-zeros over a 32-bit ready mask on the
 * Cortex-M3; the POSIX simulator has none and keeps the generic one), and
 * so 32 priorities, onto which the port maps rtscope's 1..99 in order
 * (port_freertos.c: kernel_priority). */
#define configMAX_PRIORITIES                    32

#endif
