/*
 * The kernel hooks rtscope's FreeRTOS port needs, included at the end of
 * every board's FreeRTOSConfig.h (through port_config.h). They count each
 * task's context switches (rts_self_switches), inline, in a few
 * instructions: the kernel calls the pair on every scheduling decision,
 * also when it keeps the same task, so only a change counts. The counter
 * of a task is where its thread-local slot 1 points (the port sets it for
 * its threads and its first task; the kernel's own tasks have none); slot
 * 0 holds the port's thread handle.
 */
#ifndef RTSCOPE_FREERTOS_PORT_TRACE_H
#define RTSCOPE_FREERTOS_PORT_TRACE_H

#define RTS_FREERTOS_COUNTER_SLOT 1

#if RTS_FREERTOS_SWITCH_COUNTER && !defined(__ASSEMBLER__)
/* The task leaving the CPU, kept by the kernel's first hook for its second
 * (tasks.c calls both with the scheduler's lists locked). */
extern const void *rts_freertos_leaving;

#define traceTASK_SWITCHED_OUT() (rts_freertos_leaving = pxCurrentTCB)
#define traceTASK_SWITCHED_IN()                                                                         \
    do {                                                                                                \
        volatile unsigned long *counter_ = pxCurrentTCB->pvThreadLocalStoragePointers[RTS_FREERTOS_COUNTER_SLOT]; \
        if (counter_ && (const void *)pxCurrentTCB != rts_freertos_leaving)                             \
            (*counter_)++;                                                                              \
    } while (0)
#endif

#endif
