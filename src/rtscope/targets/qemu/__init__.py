"""Emulated machines: QEMU as rtscope runs it (machine: bounded, stopped on Ctrl-C and with rtscope), and
Debian's Linux kernels booted in it (debian, with the packages it fetches and the kernel module it builds
for them). The RTOS boards of rtscope.targets.mcu boot through machine too; this family imports only the
shared core of rtscope.targets."""
