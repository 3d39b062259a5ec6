# ThreadX on the mps2-an385 board (boards/mps2-an385/): the kernel's GNU
# port for the Cortex-M3; the low-level start-up (_tx_initialize_low_level),
# which the port leaves to the user, and the byte pool's memory in the
# board's PSRAM are board_kernel.c.
THREADX_PORT     := cortex_m3/gnu
THREADX_PORT_SRC := tx_thread_context_restore.S tx_thread_context_save.S tx_thread_interrupt_control.S \
                    tx_thread_interrupt_disable.S tx_thread_interrupt_restore.S tx_thread_schedule.S \
                    tx_thread_stack_build.S tx_thread_system_return.S tx_timer_interrupt.S
# MCU=small's first thread's stack is config.h's (RTS_MAIN_STACK_BYTES: 7 KiB, as measured there).
THREADX_CPPFLAGS :=
KERNEL_BOARD_SRC := $(PORT_BOARD_DIR)/board_kernel.c
