# Build settings of the template port: a cross compiler and the RTOS's
# include paths and libraries go here, e.g. for FreeRTOS
#   CC := arm-none-eabi-gcc
#   PORT_CPPFLAGS := -I$(FREERTOS)/include -I$(FREERTOS)/portable/GCC/ARM_CM4F
PORT_CPPFLAGS :=
PORT_LDLIBS   :=
# The status names, calloc over rts_heap_alloc, the block pool (its lock pool_lock.h), the
# image sizes, one CPU's setup, and "not supported" for what this port lacks (port/common/).
PORT_SRC      := $(addprefix port/common/,status.c heap_calloc.c pool.c image.c one_cpu.c no_processes.c no_files.c no_ticker_gpio_stats.c)
