/*
 * FreeRTOS on its POSIX simulator (portable/ThirdParty/GCC/Posix): the
 * board's facts. What rtscope sets, and the configuration chosen at build
 * (dev or bench), is port_config.h's, included at the end.
 */
#ifndef FREERTOS_CONFIG_H
#define FREERTOS_CONFIG_H

#define configTICK_TYPE_WIDTH_IN_BITS           TICK_TYPE_WIDTH_64_BITS
/* In words; the simulator's tasks run on their own threads' stacks. */
#define configMINIMAL_STACK_SIZE                1024
/* heap_3 is the host's malloc: this size is not used. */
#define configTOTAL_HEAP_SIZE                   0

#include "port_config.h"

#endif
