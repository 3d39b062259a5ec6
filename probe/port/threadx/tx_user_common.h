/*
 * ThreadX's settings for rtscope, the part both configurations share
 * (config/dev/tx_user.h and config/bench/tx_user.h include it; make's
 * CONFIG=dev|bench picks one). The kernel and the probe are compiled with
 * the same file (TX_INCLUDE_USER_DEFINE_FILE), and the result's
 * configuration manifest is read from these macros (rts_os_config).
 */
#ifndef RTSCOPE_TX_USER_COMMON_H
#define RTSCOPE_TX_USER_COMMON_H

/* rtscope's priorities 1..99 and "other" map to 99..1 and 100 (port_threadx.c):
 * 128 levels, the next multiple of 32. (The Linux port's tx_port.h sets 32
 * before it includes this file.) */
#undef TX_MAX_PRIORITIES
#define TX_MAX_PRIORITIES 128

/* The tick sets the granularity of sleeps and timeouts only; rtscope's time
 * is the board's clock. 1000 Hz, as FreeRTOS's configuration has it. */
#define TX_TIMER_TICKS_PER_SECOND 1000UL

/* Timer expiries (sleeps, timeouts) are processed in the tick interrupt,
 * not by a system thread of priority 0 woken for them: no thread of the
 * kernel's own beside the probe's, as on FreeRTOS without its timer task. */
#define TX_TIMER_PROCESS_IN_ISR

/* rtscope's thread control blocks and timeouts are its own; no event trace
 * buffer, and no per-object performance counters (each is an increment in
 * the measured paths). The switch count rtscope reads is the kernel's own
 * per-thread run count (tx_thread_run_count), kept in every build. */
#undef TX_ENABLE_EVENT_TRACE

#endif
