# FreeRTOS on the mps2-an385 board (boards/mps2-an385/): the kernel's port
# for the Cortex-M3 and its heap (heap_4, whose memory, ucHeap, is placed
# in the board's PSRAM by board_kernel.c).
FREERTOS_PORTABLE     := GCC/ARM_CM3
FREERTOS_PORTABLE_SRC := port.c
FREERTOS_HEAP         := heap_4
KERNEL_BOARD_SRC      := $(PORT_BOARD_DIR)/board_kernel.c
