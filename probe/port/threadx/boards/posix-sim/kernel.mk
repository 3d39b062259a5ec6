# ThreadX on the posix-sim board (boards/posix-sim/): the kernel's Linux
# port (ports/linux/gnu), a simulator where each thread is a host thread
# that the scheduler (the process's main thread) suspends and resumes with
# signals, and an interrupt is a host thread that saves the running one's
# context first. The simulator's interrupts and the byte pool's memory are
# interrupts.c.
THREADX_PORT     := linux/gnu
THREADX_PORT_SRC := $(notdir $(wildcard $(THREADX)/ports/linux/gnu/src/*.c))
# As the port's own example build defines it.
THREADX_CPPFLAGS := -D_GNU_SOURCE
KERNEL_BOARD_SRC := $(PORT_BOARD_DIR)/interrupts.c
