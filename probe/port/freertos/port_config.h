/*
 * The part of FreeRTOSConfig.h that is rtscope's, included at the end of
 * every board's FreeRTOSConfig.h (which says only the board's facts: its
 * clock, tick width, stacks, heap, interrupt priorities, C library). First
 * the configuration chosen at build (make CONFIG=dev|bench: configs/NAME.h,
 * what tells the two apart), then what every configuration shares and the
 * port needs (port_freertos.c checks it at compile time), then the trace
 * hooks that count each task's switches (port_trace.h).
 */
#ifndef RTSCOPE_FREERTOS_PORT_CONFIG_H
#define RTSCOPE_FREERTOS_PORT_CONFIG_H

/* configs/dev.h or configs/bench.h, named by port.mk. */
#include RTS_FREERTOS_CONFIG_HEADER

/* Preemptive, fifo among equal priorities (as Linux's SCHED_FIFO): no time
 * slicing. A 1 ms tick sets the granularity of sleeps and timeouts only:
 * rtscope's time is the board's clock. */
#define configUSE_PREEMPTION                    1
#define configUSE_TIME_SLICING                  0
#define configTICK_RATE_HZ                      1000
#define configIDLE_SHOULD_YIELD                 1
#define configMAX_TASK_NAME_LEN                 16

/* Static objects where the port gives them (the rest from the heap); the
 * port's thread handle in thread-local slot 0, where its switch counter is
 * in slot 1 (port_trace.h); no software timers (no
 * timer task runs), queue sets, registry, co-routines or hooks (a failed
 * allocation is the caller's to report: the probe says what it could not
 * hold). */
#define configSUPPORT_STATIC_ALLOCATION         1
#define configSUPPORT_DYNAMIC_ALLOCATION        1
#define configKERNEL_PROVIDED_STATIC_MEMORY     1
#define configUSE_MUTEXES                       1
#define configUSE_RECURSIVE_MUTEXES             0
#define configUSE_COUNTING_SEMAPHORES           1
#define configUSE_TASK_NOTIFICATIONS            1
#define configNUM_THREAD_LOCAL_STORAGE_POINTERS 2
#define configQUEUE_REGISTRY_SIZE               0
#define configUSE_QUEUE_SETS                    0
#define configUSE_TIMERS                        0
#define configUSE_CO_ROUTINES                   0
#define configUSE_IDLE_HOOK                     0
#define configUSE_TICK_HOOK                     0
#define configUSE_MALLOC_FAILED_HOOK            0
#define configUSE_DAEMON_TASK_STARTUP_HOOK      0
#define configGENERATE_RUN_TIME_STATS           0
#define configUSE_APPLICATION_TASK_TAG          0
#define configENABLE_BACKWARD_COMPATIBILITY     0

/* The task functions port_freertos.c calls. */
#define INCLUDE_vTaskPrioritySet                1
#define INCLUDE_uxTaskPriorityGet               1
#define INCLUDE_vTaskDelete                     1
#define INCLUDE_vTaskSuspend                    1
#define INCLUDE_xTaskDelayUntil                 1
#define INCLUDE_vTaskDelay                      1
#define INCLUDE_xTaskGetSchedulerState          1
#define INCLUDE_xTaskGetCurrentTaskHandle       1

#include "port_trace.h"

#endif
