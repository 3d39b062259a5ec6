# Build settings of the FreeRTOS port, included by probe/Makefile:
#   make PORT=freertos BOARD=posix-sim|mps2-an385 [CONFIG=dev|bench] [FREERTOS_KERNEL=DIR]
# The kernel is the user's FreeRTOS-Kernel checkout, named by FREERTOS_KERNEL
# (as FreeRTOS's own builds take it) or by `rtscope kernels add freertos DIR`
# (probe/Makefile; docs/rtos.md). The board is the kernel-neutral one of
# probe/boards/$(BOARD)/ (boards/board.mk says what it sets); what it needs
# of FreeRTOS is here, in boards/$(BOARD)/: FreeRTOSConfig.h, board_kernel.h
# where the board asks for it, and kernel.mk, which sets:
#   FREERTOS_PORTABLE         the kernel's port for it, under portable/
#   FREERTOS_PORTABLE_SRC     that port's sources, relative to it
#   FREERTOS_HEAP             the kernel's heap (heap_3, heap_4 …)
#   KERNEL_BOARD_SRC          the glue's sources, compiled with the probe
# CONFIG names the kernel's configuration, configs/$(CONFIG).h: dev (the
# default: assertions, stack checking) or bench (docs/rtos.md).
BOARD ?= posix-sim
CONFIG ?= dev
ifeq ($(wildcard port/freertos/configs/$(CONFIG).h),)
$(error unknown FreeRTOS configuration '$(CONFIG)' (the configurations are: $(basename $(notdir $(wildcard port/freertos/configs/*.h)))))
endif
PORT_BOARD_DIR := port/freertos/boards/$(BOARD)
ifeq ($(wildcard $(PORT_BOARD_DIR)/kernel.mk),)
$(error unknown FreeRTOS board '$(BOARD)' (the boards are: $(notdir $(wildcard port/freertos/boards/*))))
endif
include boards/board.mk
include $(PORT_BOARD_DIR)/kernel.mk

# The versions the port was tested with, as task.h's tskKERNEL_VERSION_NUMBER
# spells them ("+": a commit between releases); docs/rtos.md says how. Another
# version builds, and its results say it is untested (a run warning). Older
# than FREERTOS_OLDEST ("+": a commit after that release) is refused, saying
# what it lacks. FREERTOS_SOURCES are
# the files and folders the port's boards compile from, whose hash identifies
# a checkout (port/common/kernel.mk). FREERTOS_REPOSITORY and FREERTOS_RELEASE
# say where to get it: the official repository and the tag to clone (the
# newest tested release). rtscope (rtscope.targets.kernels) and setup.sh
# --kernels read these lines too.
FREERTOS_REPOSITORY := https://github.com/FreeRTOS/FreeRTOS-Kernel
FREERTOS_RELEASE := V11.3.0
FREERTOS_TESTED := V11.1.0+ V11.2.0 V11.3.0
FREERTOS_OLDEST := V11.1.0+
FREERTOS_OLDEST_WHY := the port has the kernel provide its idle task's memory, with no timers: that compiles from commit fffed5e on (pull request 1104, after V11.1.0, in V11.2.0); V10 has no configKERNEL_PROVIDED_STATIC_MEMORY, and V11.0 and V11.1.0 compile the timer task's memory even without timers, needing configTIMER_TASK_STACK_DEPTH
FREERTOS_SOURCES := tasks.c queue.c list.c include portable/MemMang portable/GCC/ARM_CM3 portable/ThirdParty/GCC/Posix

# Each board and configuration builds apart from the native probe and from the others.
BUILD ?= build/freertos-$(BOARD)$(if $(filter dev,$(CONFIG)),,-$(CONFIG))$(if $(MCU),-$(MCU))$(BOARD_BUILD_SUFFIX)
CC := $(BOARD_CC)

KERNEL_VAR := FREERTOS_KERNEL
KERNEL_MISSING := $(FREERTOS_MISSING)
KERNEL_CHECKOUT := a FreeRTOS-Kernel checkout
KERNEL_PRODUCT := FreeRTOS-Kernel
KERNEL_PREFIX := FREERTOS
KERNEL_VERSION_SH := sed -n 's/^\#define[[:space:]]*tskKERNEL_VERSION_NUMBER[[:space:]]*"\([^"]*\)".*/\1/p' include/task.h
include port/common/kernel.mk

FREERTOS_INCLUDES := -isystem $(KERNEL_DIR)/include -isystem $(KERNEL_DIR)/portable/$(FREERTOS_PORTABLE)
# The probe's own main (src/main.c) and the C tests' run as the first task,
# under the name rts_app_main; the port's main (port_freertos.c) starts the
# scheduler for it.
# The configuration's header (port_config.h includes it) and the heap go to
# the kernel and the probe alike; the probe records them (rts_os_config).
KERNEL_CPPFLAGS := $(BOARD_INCLUDES) -Iport/freertos $(FREERTOS_INCLUDES) $(BOARD_CPPFLAGS) \
                   -DRTS_FREERTOS_CONFIG_HEADER='"configs/$(CONFIG).h"' -DRTS_FREERTOS_HEAP='"$(FREERTOS_HEAP)"'
PORT_CPPFLAGS := $(KERNEL_CPPFLAGS) -Dmain=rts_app_main \
                 $(KERNEL_DEFINES) -DRTS_BUILD_FLAGS='"$(strip $(CFLAGS) $(BOARD_CFLAGS))"'
PORT_CFLAGS   := $(BOARD_CFLAGS)
# The board's sources, what every port on a board gives the same way
# (boards/board_services.c), the status names, calloc over the heap, the
# block pool (its lock pool_lock.h), the image sizes, one CPU's setup, and "not supported" for
# what FreeRTOS has no use for here (port/common/).
PORT_SRC      := $(BOARD_SRC) $(KERNEL_BOARD_SRC) boards/board_services.c $(addprefix port/common/,status.c heap_calloc.c pool.c image.c one_cpu.c no_processes.c no_files.c \
                                                       no_ticker_gpio_stats.c)

# The kernel is compiled apart, with its own warnings rather than the probe's
# -Werror: it is someone else's code, built as its authors build it.
KERNEL_BUILD := $(BUILD)/kernel
KERNEL_SRC   := $(addprefix $(KERNEL_DIR)/,tasks.c queue.c list.c) \
                $(addprefix $(KERNEL_DIR)/portable/$(FREERTOS_PORTABLE)/,$(FREERTOS_PORTABLE_SRC)) \
                $(KERNEL_DIR)/portable/MemMang/$(FREERTOS_HEAP).c
KERNEL_OBJS  := $(addprefix $(KERNEL_BUILD)/,$(notdir $(KERNEL_SRC:.c=.o)))
PORT_DEPS    := $(KERNEL_OBJS) $(KERNEL_STAMP)
PORT_LDLIBS  := $(KERNEL_OBJS) $(BOARD_LDFLAGS)

vpath %.c $(sort $(dir $(KERNEL_SRC)))
$(KERNEL_BUILD)/%.o: %.c $(KERNEL_STAMP) $(PORT_BOARD_DIR)/FreeRTOSConfig.h port/freertos/port_config.h port/freertos/configs/$(CONFIG).h \
                    port/freertos/port_trace.h $(BOARD_DIR)/board.mk $(PORT_BOARD_DIR)/kernel.mk
	@mkdir -p $(KERNEL_BUILD)
	$(CC) $(KERNEL_CPPFLAGS) $(CFLAGS) -c -o $@ $<
