# The mps2-an385 board (QEMU's Cortex-M3): what a port's port.mk takes
# from a board, whatever the kernel. Debian's gcc-arm-none-eabi with newlib; the image is an
# ELF file that QEMU loads itself (qemu-system-arm -M mps2-an385 -kernel).
# Full newlib, not newlib-nano: the probe prints 64-bit integers (%llu),
# which Debian's nano printf does not format.
#   BOARD_CC        the compiler
#   BOARD_CFLAGS    code generation (also recorded in the result's build)
#   BOARD_CPPFLAGS  the board's include paths and the probe's sizes for it
#   BOARD_SRC       the board's sources
#   BOARD_LDFLAGS   the link
BOARD_CC              := arm-none-eabi-gcc
BOARD_CFLAGS          := -mcpu=cortex-m3 -mthumb -ffunction-sections -fdata-sections
# The probe's sizes on this board (include/rtscope/config.h): one CPU; in
# the full build task stacks of 16 KiB (newlib's number formatting is the
# deepest user) and an app.workload that fits the 15 MiB heap; MCU=small
# takes config.h's small sizes. BOARD_KERNEL_HEAP_BYTES is the kernel's heap
# (FreeRTOS's heap_4 array, in the linker script's KERNEL_HEAP region):
# 15 MiB of the PSRAM, or in MCU=small's 48 KiB of RAM what data, bss, the
# C library's heap and the interrupt stack leave (memory-small.ld; the link
# says when it is too much).
# MCU=small: the board's own buffers shrunk (the semihosting command line,
# the result's path), and the kernel's heap.
BOARD_SMALL_SIZES     := -DBOARD_CMDLINE_BYTES=1024 -DRESULT_PATH_BYTES=128 \
                         -DBOARD_KERNEL_HEAP_BYTES=19136
BOARD_SIZES           := -DRTS_MAX_CPUS=1 $(if $(MCU),$(BOARD_SMALL_SIZES),\
                         -DRTS_THREAD_STACK_BYTES=16384 -DRTS_STACK_PREFAULT_BYTES=4096 \
                         -DRTS_MAX_APP_BYTES='(UINT64_C(4)<<20)' -DRTS_SYS_CMDLINE=64 \
                         -DBOARD_KERNEL_HEAP_BYTES='(15U*1024U*1024U)')
# How the image reaches its host (channel.h): LINK=semihosting (QEMU's, the
# default) or LINK=uart (frames on UART0, boards/common/frame.c: a board with
# no semihosting host, reached by --target serial: or gdb://), built apart
# (BOARD_BUILD_SUFFIX ends the port's build folder).
LINK                  ?= semihosting
ifeq ($(wildcard $(BOARD_DIR)/channel_$(LINK).c),)
$(error unknown LINK '$(LINK)' (semihosting or uart))
endif
ifeq ($(LINK),uart)
BOARD_BUILD_SUFFIX    := -uart
LINK_SRC              := boards/common/frame.c
endif
# Its software interrupt is pended inline in the tests' loops (boards/port_inline.h).
BOARD_CPPFLAGS        := $(BOARD_SIZES) -Iboards/common -DBOARD_SOFT_IRQ_INLINE
BOARD_SRC             := $(BOARD_DIR)/board.c $(BOARD_DIR)/startup.c $(BOARD_DIR)/channel_$(LINK).c $(LINK_SRC)
# The memory's regions (memory.ld, or memory-small.ld for MCU=small), then the sections in them.
BOARD_LDFLAGS         := -T$(BOARD_DIR)/memory$(if $(MCU),-$(MCU)).ld -T$(BOARD_DIR)/mps2-an385.ld -nostartfiles \
                         -Wl,--gc-sections --specs=nosys.specs
