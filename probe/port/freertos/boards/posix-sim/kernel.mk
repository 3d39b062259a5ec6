# FreeRTOS on the posix-sim board (boards/posix-sim/): the kernel's POSIX
# simulator (portable/ThirdParty/GCC/Posix), interrupts are signals.
FREERTOS_PORTABLE     := ThirdParty/GCC/Posix
FREERTOS_PORTABLE_SRC := port.c utils/wait_for_event.c
# The host's malloc, made task-safe by the kernel: a heap of any size.
FREERTOS_HEAP         := heap_3
# The interrupts: signals (a software interrupt the raising task sends
# itself, the POSIX port's timer signal directed at the process).
KERNEL_BOARD_SRC      := $(PORT_BOARD_DIR)/interrupts.c port/posix/timer_irq_posix.c
