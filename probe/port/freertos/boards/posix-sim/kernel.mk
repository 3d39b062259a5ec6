# FreeRTOS on the posix-sim board (boards/posix-sim/): the kernel's POSIX
# simulator (portable/ThirdParty/GCC/Posix), interrupts are signals.
FREERTOS_PORTABLE     := ThirdParty/GCC/Posix
FREERTOS_PORTABLE_SRC := port.c utils/wait_for_event.c
# The host's malloc, made task-safe by the kernel: a heap of any size.
FREERTOS_HEAP         := heap_3
# The software interrupt: a signal the raising task sends itself.
KERNEL_BOARD_SRC      := $(PORT_BOARD_DIR)/soft_irq.c
