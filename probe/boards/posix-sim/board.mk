# FreeRTOS's POSIX simulator (portable/ThirdParty/GCC/Posix): each task a
# Linux thread, interrupts signals, the tick a host thread. It runs the
# port's contract tests and the benches' functional checks on this machine;
# its timings are the simulator's, never an RTOS's.
BOARD_CC              := $(CC)
BOARD_CFLAGS          := -pthread
# The host's clocks, signals and POSIX timers (board.c, board_time.h).
BOARD_CPPFLAGS        := -D_POSIX_C_SOURCE=200809L
BOARD_LDFLAGS         := -pthread -lrt
# The timer interrupt is the POSIX port's timer signal, directed at the process.
BOARD_SRC             := $(BOARD_DIR)/board.c port/posix/timer_irq_posix.c
FREERTOS_PORTABLE     := ThirdParty/GCC/Posix
FREERTOS_PORTABLE_SRC := port.c utils/wait_for_event.c
# The host's malloc, made task-safe by the kernel: a heap of any size.
FREERTOS_HEAP         := heap_3
