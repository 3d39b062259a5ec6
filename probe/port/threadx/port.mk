# Build settings of the ThreadX port, included by probe/Makefile:
#   make PORT=threadx BOARD=posix-sim|mps2-an385 [THREADX=DIR] [CONFIG=dev|bench]
# The kernel is the user's Eclipse ThreadX checkout, named by THREADX or by
# `rtscope kernels add threadx DIR` (probe/Makefile; docs/rtos.md). The board is the
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

# The versions the port was tested with, as tx_api.h's THREADX_MAJOR_VERSION,
# _MINOR_ and _PATCH_ spell them; docs/rtos.md says how. Another version
# builds, and its results say it is untested (a run warning). Older than
# THREADX_OLDEST is refused, saying what it lacks. THREADX_SOURCES are the
# files and folders the port's boards compile from, whose hash identifies a
# checkout (port/common/kernel.mk). THREADX_REPOSITORY and THREADX_RELEASE say
# where to get it: the official repository and the tag to clone (the newest
# tested release). rtscope (rtscope.targets.kernels) and setup.sh --kernels
# read these lines too.
THREADX_REPOSITORY := https://github.com/eclipse-threadx/threadx
THREADX_RELEASE := v6.4.2_rel
THREADX_TESTED := 6.1.12 6.2.1 6.3.0 6.4.0 6.4.1 6.4.2
THREADX_OLDEST := 6.1.7
THREADX_OLDEST_WHY := the Cortex-M3 port's tx_thread_interrupt_disable.S and tx_thread_interrupt_restore.S, which the mps2-an385 board builds, came in 6.1.7
THREADX_SOURCES := common ports/cortex_m3/gnu ports/linux/gnu

# Each board and configuration builds apart from the others.
BUILD ?= build/threadx-$(BOARD)$(if $(filter-out dev,$(CONFIG)),-$(CONFIG))$(if $(MCU),-$(MCU))$(BOARD_BUILD_SUFFIX)
CC := $(BOARD_CC)

KERNEL_VAR := THREADX
KERNEL_MISSING := $(THREADX_MISSING)
KERNEL_CHECKOUT := an Eclipse ThreadX checkout
KERNEL_PRODUCT := Eclipse ThreadX
KERNEL_PREFIX := THREADX
KERNEL_VERSION_SH := awk '$$1 == "\#define" && $$2 ~ /^THREADX_(MAJOR|MINOR|PATCH)_VERSION$$/ { v[$$2] = $$3; n++ } \
    END { if (n == 3) print v["THREADX_MAJOR_VERSION"] "." v["THREADX_MINOR_VERSION"] "." v["THREADX_PATCH_VERSION"] }' \
    common/inc/tx_api.h
include port/common/kernel.mk

THREADX_INCLUDES := -DTX_INCLUDE_USER_DEFINE_FILE -I$(THREADX_CONFIG_DIR) -isystem $(KERNEL_DIR)/common/inc \
                    -isystem $(KERNEL_DIR)/ports/$(THREADX_PORT)/inc $(THREADX_CPPFLAGS)
# The probe's own main (src/main.c) and the C tests' run as the first
# thread, under the name rts_app_main; the port's main (port_threadx.c)
# enters the kernel for it.
PORT_CPPFLAGS := $(BOARD_INCLUDES) $(THREADX_INCLUDES) $(BOARD_CPPFLAGS) -Dmain=rts_app_main \
                 $(KERNEL_DEFINES) -DRTS_BUILD_FLAGS='"$(strip $(CFLAGS) $(BOARD_CFLAGS))"'
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
KERNEL_SRC   := $(wildcard $(KERNEL_DIR)/common/src/*.c) \
                $(addprefix $(KERNEL_DIR)/ports/$(THREADX_PORT)/src/,$(THREADX_PORT_SRC))
KERNEL_OBJS  := $(addprefix $(KERNEL_BUILD)/,$(addsuffix .o,$(basename $(notdir $(KERNEL_SRC)))))
PORT_DEPS    := $(KERNEL_OBJS) $(KERNEL_STAMP) $(THREADX_CONFIG_DIR)/tx_user.h port/threadx/tx_user_common.h
PORT_LDLIBS  := $(KERNEL_OBJS) $(BOARD_LDFLAGS)

KERNEL_DEPS := $(KERNEL_STAMP) $(THREADX_CONFIG_DIR)/tx_user.h port/threadx/tx_user_common.h $(BOARD_DIR)/board.mk \
               $(PORT_BOARD_DIR)/kernel.mk
vpath %.c $(sort $(dir $(KERNEL_SRC)))
vpath %.S $(sort $(dir $(KERNEL_SRC)))
$(KERNEL_BUILD)/%.o: %.c $(KERNEL_DEPS)
	@mkdir -p $(KERNEL_BUILD)
	$(CC) $(THREADX_INCLUDES) $(BOARD_CPPFLAGS) $(CFLAGS) -c -o $@ $<
$(KERNEL_BUILD)/%.o: %.S $(KERNEL_DEPS)
	@mkdir -p $(KERNEL_BUILD)
	$(CC) $(THREADX_INCLUDES) $(CFLAGS) -c -o $@ $<
