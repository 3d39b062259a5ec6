/*
 * The kernel hooks rtscope's FreeRTOS port needs, included at the end of
 * every board's FreeRTOSConfig.h. They count each task's context switches
 * (rts_self_switches): the kernel calls the pair on every scheduling
 * decision, also when it keeps the same task, so only a change counts.
 * The port keeps its thread handle in thread-local storage slot 0.
 */
#ifndef RTSCOPE_FREERTOS_PORT_TRACE_H
#define RTSCOPE_FREERTOS_PORT_TRACE_H

#ifndef __ASSEMBLER__
/* Called by the kernel (tasks.c), with the scheduler's lists locked:
 * the task leaving the CPU, then the one chosen next and its slot 0. */
void rts_freertos_switched_out(const void *tcb);
void rts_freertos_switched_in(const void *tcb, void *slot0);

#define traceTASK_SWITCHED_OUT() rts_freertos_switched_out(pxCurrentTCB)
#define traceTASK_SWITCHED_IN() rts_freertos_switched_in(pxCurrentTCB, pxCurrentTCB->pvThreadLocalStoragePointers[0])
#endif

#endif
