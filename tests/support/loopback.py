"""A free TCP port on 127.0.0.1, for the servers the tests start (sshd, labgrid, PostgreSQL, QEMU's UART
and gdbstub) and for addresses where nothing must answer."""

import socket


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])
