"""Microcontroller boards running an RTOS image of the probe: emulated in QEMU (qemu_board), flashed and on
a serial line (serial_board), or loaded through a GDB server (gdb_board), all speaking the framed protocol
of framing. Besides the shared core of rtscope.targets, this family imports rtscope.targets.qemu.machine,
the one way rtscope runs QEMU, and nothing else of another family."""
