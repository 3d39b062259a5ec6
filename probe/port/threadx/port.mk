# Build settings of the ThreadX port, included by probe/Makefile:
#   make PORT=threadx BOARD=posix-sim|mps2-an385 [THREADX=DIR] [CONFIG=dev|bench]
# The kernel comes from THREADX (an Eclipse ThreadX checkout), by default
# ../shared/vendor/threadx beside the repository. The board is the
# kernel-neutral one of probe/boards/$(BOARD)/ (boards/board.mk says what it
# sets); what it needs of ThreadX is here, in boards/$(BOARD)/: kernel.mk,
# which sets
#   THREADX_PORT              the kernel's port for it, under ports/ (cortex_m3/gnu, linux/gnu)
#   THREADX_PORT_SRC          that port's sources, under its src/
#   THREADX_CPPFLAGS          the defines that port is built with
#   KERNEL_BOARD_SRC          the glue's sources, compiled with the probe
# and board_kernel.h where the board asks for it. CONFIG picks the kernel's
# configuration, config/$(CONFIG)/tx_user.h: dev (error and stack checking,
# the default) or bench (neither; docs/rtos.md).
BOARD  ?= posix-sim
CONFIG ?= dev
PORT_BOARD_DIR := port/threadx/boards/$(BOARD)
ifeq ($(wildcard $(PORT_BOARD_DIR)/kernel.mk),)
$(error unknown ThreadX board '$(BOARD)' (the boards are: $(notdir $(wildcard port/threadx/boards/*))))
endif
THREADX_CONFIG_DIR := port/threadx/config/$(CONFIG)
ifeq ($(wildcard $(THREADX_CONFIG_DIR)/tx_user.h),)
$(error unknown ThreadX configuration '$(CONFIG)' (the configurations are: $(notdir $(wildcard port/threadx/config/*))))
endif
include boards/board.mk
include $(PORT_BOARD_DIR)/kernel.mk

ifeq ($(wildcard $(THREADX)/common/src/tx_thread_create.c),)
$(error no ThreadX kernel at $(THREADX) (set THREADX to an Eclipse ThreadX checkout))
endif

# Each board and configuration builds apart from the others.
BUILD ?= build/threadx-$(BOARD)$(if $(filter-out dev,$(CONFIG)),-$(CONFIG))$(if $(MCU),-$(MCU))$(BOARD_BUILD_SUFFIX)
CC := $(BOARD_CC)

# The kernel's commit, as port/freertos/port.mk finds FreeRTOS's: git when
# it is a checkout of its own, else the README of the folder holding it.
THREADX_COMMIT := $(or $(shell test "$$(git -C '$(THREADX)' rev-parse --show-toplevel 2>/dev/null)" = \
                             "$$(cd '$(THREADX)' && pwd -P)" && git -C '$(THREADX)' rev-parse HEAD),$\
                    $(shell sed -n 's/^| *$(notdir $(THREADX))\/ *|.*commit \([0-9a-f]\{40\}\).*/\1/p' \
                             '$(THREADX)/../README.md' 2>/dev/null | head -n 1),unknown)

THREADX_INCLUDES := -DTX_INCLUDE_USER_DEFINE_FILE -I$(THREADX_CONFIG_DIR) -isystem $(THREADX)/common/inc \
                    -isystem $(THREADX)/ports/$(THREADX_PORT)/inc $(THREADX_CPPFLAGS)
# The probe's own main (src/main.c) and the C tests' run as the first
# thread, under the name rts_app_main; the port's main (port_threadx.c)
# enters the kernel for it.
PORT_CPPFLAGS := $(BOARD_INCLUDES) $(THREADX_INCLUDES) $(BOARD_CPPFLAGS) -Dmain=rts_app_main \
                 -DRTS_THREADX_COMMIT='"$(THREADX_COMMIT)"' -DRTS_BUILD_FLAGS='"$(strip $(CFLAGS) $(BOARD_CFLAGS))"'
PORT_CFLAGS   := $(BOARD_CFLAGS)
# The board's sources, what every port on a board gives the same way
# (boards/board_services.c), the status names, calloc over the heap, the
# image sizes, one CPU's setup, and "not supported" for what ThreadX has no
# use for here (port/common/). The block pool is the kernel's own.
PORT_SRC      := $(BOARD_SRC) $(KERNEL_BOARD_SRC) boards/board_services.c \
                 $(addprefix port/common/,status.c heap_calloc.c image.c one_cpu.c no_processes.c no_files.c no_ticker_gpio_stats.c)

# The kernel is compiled apart, with its own warnings rather than the
# probe's -Werror: it is someone else's code, built as its authors build it.
KERNEL_BUILD := $(BUILD)/kernel
KERNEL_SRC   := $(wildcard $(THREADX)/common/src/*.c) \
                $(addprefix $(THREADX)/ports/$(THREADX_PORT)/src/,$(THREADX_PORT_SRC))
KERNEL_OBJS  := $(addprefix $(KERNEL_BUILD)/,$(addsuffix .o,$(basename $(notdir $(KERNEL_SRC)))))
PORT_DEPS    := $(KERNEL_OBJS) $(THREADX_CONFIG_DIR)/tx_user.h port/threadx/tx_user_common.h
PORT_LDLIBS  := $(KERNEL_OBJS) $(BOARD_LDFLAGS)

KERNEL_DEPS := $(THREADX_CONFIG_DIR)/tx_user.h port/threadx/tx_user_common.h $(BOARD_DIR)/board.mk \
               $(PORT_BOARD_DIR)/kernel.mk
vpath %.c $(sort $(dir $(KERNEL_SRC)))
vpath %.S $(sort $(dir $(KERNEL_SRC)))
$(KERNEL_BUILD)/%.o: %.c $(KERNEL_DEPS)
	@mkdir -p $(KERNEL_BUILD)
	$(CC) $(THREADX_INCLUDES) $(BOARD_CPPFLAGS) $(CFLAGS) -c -o $@ $<
$(KERNEL_BUILD)/%.o: %.S $(KERNEL_DEPS)
	@mkdir -p $(KERNEL_BUILD)
	$(CC) $(THREADX_INCLUDES) $(CFLAGS) -c -o $@ $<
