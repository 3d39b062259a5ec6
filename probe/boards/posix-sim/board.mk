# A kernel's simulator on this machine (FreeRTOS's POSIX port, ThreadX's
# ports/linux/gnu): each thread a Linux thread, the tick a host thread. It
# runs the ports' contract tests and the benches' functional checks here;
# its timings are the simulator's, never an RTOS's.
BOARD_CC              := $(CC)
BOARD_CFLAGS          := -pthread
# The host's clocks, signals and POSIX timers (board.c, board_time.h).
BOARD_CPPFLAGS        := -D_POSIX_C_SOURCE=200809L
BOARD_LDFLAGS         := -pthread -lrt
# The interrupts are the kernel simulator's (the port's boards/posix-sim/).
BOARD_SRC             := $(BOARD_DIR)/board.c
