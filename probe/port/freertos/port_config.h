/*
 * What rtscope's FreeRTOS port needs of every board's FreeRTOSConfig.h,
 * which includes this at its end: the task functions port_freertos.c calls,
 * and the kernel's trace hooks that count each task's switches
 * (port_trace.h). A board may include more of the kernel's functions.
 */
#ifndef RTSCOPE_FREERTOS_PORT_CONFIG_H
#define RTSCOPE_FREERTOS_PORT_CONFIG_H

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
