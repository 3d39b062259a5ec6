/*
 * FreeRTOS's settings for QEMU's mps2-an385 (Cortex-M3, portable/GCC/ARM_CM3).
 *
 * The tick comes from SysTick, which QEMU clocks with the board's 25 MHz
 * system clock; rtscope's own time is a CMSDK timer (board_time.h), so
 * the tick rate only sets the granularity of sleeps and timeouts.
 * Static allocation is on (the port uses it where FreeRTOS offers it); the
 * dynamic heap (heap_4) lives in the 16 MiB PSRAM (mps2-an385.ld).
 */
#ifndef FREERTOS_CONFIG_H
#define FREERTOS_CONFIG_H

#define configCPU_CLOCK_HZ                      25000000UL
#define configTICK_RATE_HZ                      1000U
#define configUSE_PREEMPTION                    1
/* rtscope's port: fifo among equal priorities, and its priorities 1..99
 * mapped to 2..100 (more than the 32 of the optimised task selection). */
#define configUSE_TIME_SLICING                  0
#define configUSE_PORT_OPTIMISED_TASK_SELECTION 0
#define configMAX_PRIORITIES                    102
#define configMINIMAL_STACK_SIZE                256U
#define configMAX_TASK_NAME_LEN                 16
#define configTICK_TYPE_WIDTH_IN_BITS           TICK_TYPE_WIDTH_32_BITS
#define configIDLE_SHOULD_YIELD                 1
#define configUSE_TASK_NOTIFICATIONS            1
#define configTASK_NOTIFICATION_ARRAY_ENTRIES   2
#define configUSE_MUTEXES                       1
#define configUSE_RECURSIVE_MUTEXES             1
#define configUSE_COUNTING_SEMAPHORES           1
#define configQUEUE_REGISTRY_SIZE               0
#define configUSE_QUEUE_SETS                    0
/* Each task has newlib's state of its own (number formatting keeps its
 * buffers there), switched with the task. */
#define configUSE_NEWLIB_REENTRANT              1
#define configENABLE_BACKWARD_COMPATIBILITY     0
#define configNUM_THREAD_LOCAL_STORAGE_POINTERS 2
#define configUSE_APPLICATION_TASK_TAG          0
#define configUSE_TRACE_FACILITY                0

/* Memory: static objects where the port gives them, the rest from heap_4
 * on ucHeap, which the board places in PSRAM (board_kernel.c). */
#define configSUPPORT_STATIC_ALLOCATION         1
#define configSUPPORT_DYNAMIC_ALLOCATION        1
#define configKERNEL_PROVIDED_STATIC_MEMORY     1
#define configAPPLICATION_ALLOCATED_HEAP        1
#define configTOTAL_HEAP_SIZE                   ((size_t)BOARD_KERNEL_HEAP_BYTES) /* board.mk: by the build */

/* Hooks: a failed allocation is the caller's to report (the probe says
 * what it could not hold); a stack overflow ends the run (board.c). The
 * check is the stack pointer's at each switch (method 1, a few
 * instructions): method 2, the trace facility and the high-water mark
 * would have the kernel fill every new task's stack with a pattern, a
 * memset of the whole stack inside thread.create (117 us of a 117 us
 * create with 256 KiB stacks at shift 0). The hook is the port's. */
#define configUSE_IDLE_HOOK                     0
#define configUSE_TICK_HOOK                     0
#define configUSE_MALLOC_FAILED_HOOK            0
#define configCHECK_FOR_STACK_OVERFLOW          1
#define configUSE_DAEMON_TASK_STARTUP_HOOK      0

#define configGENERATE_RUN_TIME_STATS           0
#define configUSE_CO_ROUTINES                   0

/* No software timers (the port does not use them; no timer task runs). */
#define configUSE_TIMERS                        0

/* Interrupt priorities (the upper bits of an 8-bit field; QEMU implements
 * them all). The board's interrupts run at BOARD_IRQ_PRIORITY
 * (board_kernel.h), below configMAX_SYSCALL_INTERRUPT_PRIORITY, so they
 * may call ...FromISR. */
#define configKERNEL_INTERRUPT_PRIORITY         0xE0
#define configMAX_SYSCALL_INTERRUPT_PRIORITY    0xA0

/* The handlers are installed by name in the vector table (startup.c). */
#define configCHECK_HANDLER_INSTALLATION        1

#define INCLUDE_xTaskGetIdleTaskHandle          1
#define INCLUDE_eTaskGetState                   1
#define INCLUDE_xTaskResumeFromISR              1
#define INCLUDE_xTaskAbortDelay                 1
#define INCLUDE_xTaskGetHandle                  1
#define INCLUDE_xSemaphoreGetMutexHolder        1

/* A failed assertion in the kernel ends the run with its place (the port's
 * rts_freertos_assert_failed, through the board's board_fatal). */
#ifndef __ASSEMBLER__
void rts_freertos_assert_failed(const char *file, int line);
#endif
#define configASSERT(condition) do { if (!(condition)) rts_freertos_assert_failed(__FILE__, __LINE__); } while (0)

/* What the port needs: the task functions it calls, its switch counts. */
#include "port_config.h"

#endif
