/*
 * FreeRTOS configuration of the POSIX simulator board. What rtscope's port
 * needs of every board (port_freertos.c checks it at compile time):
 * priorities 0..100 (the probe's 1..99 above "other" and the idle task),
 * no time slicing (fifo among equals, as Linux's SCHED_FIFO), static
 * allocation, one thread-local slot, task notifications, mutexes and
 * counting semaphores, suspension, deletion and the trace hooks.
 */
#ifndef FREERTOS_CONFIG_H
#define FREERTOS_CONFIG_H

#define configUSE_PREEMPTION                    1
#define configUSE_TIME_SLICING                  0
#define configUSE_PORT_OPTIMISED_TASK_SELECTION 0
#define configMAX_PRIORITIES                    101
#define configTICK_RATE_HZ                      1000
/* In words; the simulator's tasks run on their own threads' stacks. */
#define configMINIMAL_STACK_SIZE                1024
#define configMAX_TASK_NAME_LEN                 16
#define configTICK_TYPE_WIDTH_IN_BITS           TICK_TYPE_WIDTH_64_BITS
#define configIDLE_SHOULD_YIELD                 1

#define configSUPPORT_STATIC_ALLOCATION         1
#define configSUPPORT_DYNAMIC_ALLOCATION        1
#define configKERNEL_PROVIDED_STATIC_MEMORY     1
/* heap_3 is the host's malloc: this size is not used. */
#define configTOTAL_HEAP_SIZE                   0

#define configUSE_MUTEXES                       1
#define configUSE_RECURSIVE_MUTEXES             0
#define configUSE_COUNTING_SEMAPHORES           1
#define configUSE_TASK_NOTIFICATIONS            1
#define configNUM_THREAD_LOCAL_STORAGE_POINTERS 1
#define configQUEUE_REGISTRY_SIZE               0
#define configUSE_TIMERS                        0
#define configUSE_IDLE_HOOK                     0
#define configUSE_TICK_HOOK                     0
#define configUSE_MALLOC_FAILED_HOOK            0
#define configCHECK_FOR_STACK_OVERFLOW          0
#define configUSE_TRACE_FACILITY                0
#define configGENERATE_RUN_TIME_STATS           0
#define configUSE_CO_ROUTINES                   0


/* A broken kernel invariant ends the run with a line saying where. */
void rts_freertos_assert_failed(const char *file, int line);
#define configASSERT(x)                                          \
    do {                                                         \
        if (!(x))                                                \
            rts_freertos_assert_failed(__FILE__, __LINE__);      \
    } while (0)

/* What the port needs: the task functions it calls, its switch counts. */
#include "port_config.h"

#endif
