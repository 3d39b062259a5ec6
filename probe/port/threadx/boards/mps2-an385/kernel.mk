# ThreadX on the mps2-an385 board (boards/mps2-an385/): the kernel's GNU
# port for the Cortex-M3; the low-level start-up (_tx_initialize_low_level),
# which the port leaves to the user, and the byte pool's memory in the
# board's PSRAM are board_kernel.c.
THREADX_PORT     := cortex_m3/gnu
THREADX_PORT_SRC := tx_thread_context_restore.S tx_thread_context_save.S tx_thread_interrupt_control.S \
                    tx_thread_interrupt_disable.S tx_thread_interrupt_restore.S tx_thread_schedule.S \
                    tx_thread_stack_build.S tx_thread_system_return.S tx_timer_interrupt.S
# MCU=small: the first thread's stack a KiB above config.h's 6 KiB. Its deepest point in a run of micro,
# threadmetric and latency (tm.basic's 4 KiB array, and under it the allocation of its metric) left 152
# bytes, fewer than newlib's printf takes (0.6 KiB) should a bench there format a message, as an
# invalidation does. It leaves 1,176 bytes; the KiB comes from the C library's heap (7.8 KiB then, of
# which the run's break took 3.9).
THREADX_CPPFLAGS := $(if $(MCU),-DRTS_MAIN_STACK_BYTES=7168)
KERNEL_BOARD_SRC := $(PORT_BOARD_DIR)/board_kernel.c
