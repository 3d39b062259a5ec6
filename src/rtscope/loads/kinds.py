"""The kinds of disturbance load a run can measure under (idle, CPU, memory, disk I/O, network,
scheduler), their parameters, and ``--load`` values read into load specs.

Each kind names the real tool behind it, the commands that start it and how much CPU it should use;
rtscope.loads.session starts, verifies and stops them on the target.
"""

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from rtscope.errors import RtscopeError
from rtscope.model import values
from rtscope.targets.transport import Transport, has_command

# Longest a load may run: it bounds the network stream even if everything else failed.
MAX_LOAD_S = 3600


@dataclass(frozen=True)
class LoadParam:
    """A load parameter: its default (as text), what it means, and how its text is read."""

    default: str
    description: str
    convert: Callable[[str], Any]


def _percent(text: str) -> int:
    value = values.positive(text)
    if value > 100:
        raise ValueError(f"{text!r} is not a percentage of 1..100")
    return value


def _size(text: str) -> str:
    """A size stress-ng reads: a number with an optional K, M or G."""
    digits = text[:-1] if text[-1:].upper() in ("K", "M", "G") else text
    if not digits.isdigit() or int(digits) == 0:
        raise ValueError(f"{text!r} is not a size such as 256M")
    return text


def _bytes(text: str) -> int:
    """A size as _size reads it, in bytes."""
    scale = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}.get(text[-1:].upper(), 1)
    return int(text.rstrip("KMGkmg")) * scale


def _cpus(text: str) -> str:
    """CPUs as stress-ng's --taskset reads them; "all": every CPU."""
    return text if text == "all" else ",".join(map(str, values.cpu_list(text.replace("+", ","))))


@dataclass(frozen=True)
class LoadKind:
    """One kind of load: the tool behind it, its parameters, the processes it starts, what it should use."""

    name: str
    summary: str
    tool: str | None  # the executable it needs (None: idle)
    package: str | None  # the Debian package that provides it
    params: dict[str, LoadParam]
    # (settings, where it runs) -> the commands to start, in order
    commands: Callable[[dict[str, Any], "Place"], list[list[str]]]
    # (settings, where it runs) -> CPUs' worth of time its processes should use when running
    expected_cpus: Callable[[dict[str, Any], "Place"], float]
    # (settings, where it runs) -> the same load made of busybox commands, for a guest that has nothing
    # else (rtscope.loads.guest); None: the settings have no busybox equivalent (the reason is raised)
    busybox: Callable[[dict[str, Any], "Place"], list[list[str]]] = lambda s, w: []
    # whether its guest commands need rtscope's kernel module and its loaders in the guest (probe/kmod/)
    kernel_module: bool = False


@dataclass(frozen=True)
class Place:
    """What a load's commands depend on about the machine they run on (the target, not this one)."""

    scratch: str  # a private directory there, for files the load writes
    port: int  # a free loopback port there
    cpus: int  # CPUs online there


def _cpu_count(settings: dict[str, Any], place: Place) -> int:
    return place.cpus if settings["cpus"] == "all" else len(settings["cpus"].split(","))


def _taskset(settings: dict[str, Any]) -> list[str]:
    return [] if settings["cpus"] == "all" else ["--taskset", settings["cpus"]]


def _loop(body: str) -> list[str]:
    """A shell loop running ``body`` until it is stopped (a load for a guest with only busybox)."""
    return ["sh", "-c", f"while :; do {body}; done"]


def _busy_cpus(settings: dict[str, Any], place: "Place") -> list[list[str]]:
    if settings["load"] != 100:
        raise RtscopeError("load cpu: in a guest only load=100 (a busy shell loop per CPU) is available")
    cpus = settings["cpus"].split(",") if settings["cpus"] != "all" else [str(cpu) for cpu in range(place.cpus)]
    return [["taskset", "-c", cpu, *_loop(":")] for cpu in cpus]


def _guest_net(settings: dict[str, Any], place: "Place") -> list[list[str]]:
    if settings["bitrate"] != "0":
        raise RtscopeError("load net: in a guest only bitrate=0 (busybox nc as fast as it goes) is available")
    return [_loop(f"nc -l -p {place.port} >/dev/null"), _loop(f"nc 127.0.0.1 {place.port} </dev/zero")]


def _stress(*args: str) -> list[str]:
    return ["stress-ng", *args, "--timeout", f"{MAX_LOAD_S}s", "--quiet"]


def _hold_what(text: str) -> str:
    if text not in ("irqs", "preempt", "fifo"):
        raise ValueError(f"{text!r} is not irqs, preempt or fifo")
    return text


def _hold_prio(text: str) -> str:
    if text != "default" and not (text.isdigit() and 1 <= int(text) <= 99):
        raise ValueError(f"{text!r} is not default or a priority 1..99")
    return text


def _hold_on_host(settings: dict[str, Any], place: "Place") -> list[list[str]]:
    raise RtscopeError("load hold: only in rtscope's QEMU guests (--target qemu:…), which load rtscope's kernel module")


def _hold(settings: dict[str, Any], place: "Place") -> list[list[str]]:
    if settings["us"] >= settings["every_us"]:
        raise RtscopeError(f"load hold: us={settings['us']} must be shorter than every_us={settings['every_us']}")
    if settings["cpu"] >= place.cpus:
        raise RtscopeError(f"load hold: cpu={settings['cpu']}, but the guest has {place.cpus} CPU(s)")
    prio = "0" if settings["prio"] == "default" else settings["prio"]
    return [
        [
            "rtscope-kmod-hold",
            settings["what"],
            str(settings["us"]),
            str(settings["every_us"]),
            str(settings["cpu"]),
            prio,
        ]
    ]


_CPUS = LoadParam("all", "CPUs to load, e.g. 1 or 0-1 (+ joins CPUs: 0+2)", _cpus)
_WORKERS = LoadParam("1", "worker processes", values.positive)

KINDS = {
    kind.name: kind
    for kind in (
        LoadKind("idle", "no load: the system as it is", None, None, {}, lambda s, w: [], lambda s, w: 0.0),
        LoadKind(
            "cpu",
            "stress-ng CPU stressors, one per CPU",
            "stress-ng",
            "stress-ng",
            {"cpus": _CPUS, "load": LoadParam("100", "percent of each CPU to use", _percent)},
            lambda s, w: [_stress("--cpu", str(_cpu_count(s, w)), "--cpu-load", str(s["load"]), *_taskset(s))],
            lambda s, w: _cpu_count(s, w) * s["load"] / 100,
            _busy_cpus,
        ),
        LoadKind(
            "memory",
            "stress-ng vm: workers writing and checking memory",
            "stress-ng",
            "stress-ng",
            {"workers": _WORKERS, "bytes": LoadParam("256M", "memory per worker", _size)},
            lambda s, w: [_stress("--vm", str(s["workers"]), "--vm-bytes", s["bytes"])],
            lambda s, w: s["workers"] * 0.5,
            # bytes written and read back through a pipe, a MiB at a time, again and again (a guest's small
            # memory holds no buffer of the whole size).
            lambda s, w: (
                [
                    _loop(
                        f"dd if=/dev/zero bs=1M count={max(_bytes(s['bytes']) >> 20, 1)} 2>/dev/null | "
                        f"dd of=/dev/null bs=64K 2>/dev/null"
                    )
                ]
                * s["workers"]
            ),
        ),
        LoadKind(
            "io",
            "stress-ng hdd: workers writing and reading files in a scratch directory",
            "stress-ng",
            "stress-ng",
            {"workers": _WORKERS, "bytes": LoadParam("64M", "file size per worker", _size)},
            lambda s, w: [_stress("--hdd", str(s["workers"]), "--hdd-bytes", s["bytes"], "--temp-path", w.scratch)],
            lambda s, w: s["workers"] * 0.1,
            # A guest's scratch directory is on its tmpfs: a RAM disk.
            lambda s, w: [
                _loop(
                    f"dd if=/dev/zero of={w.scratch}/io-{n} bs=64K count={max(_bytes(s['bytes']) >> 16, 1)} "
                    f"conv=fsync 2>/dev/null && cat {w.scratch}/io-{n} >/dev/null && rm -f {w.scratch}/io-{n}"
                )
                for n in range(s["workers"])
            ],
        ),
        LoadKind(
            "net",
            "iperf3 UDP stream over loopback at full speed (server and client)",
            "iperf3",
            "iperf3",
            {
                "bitrate": LoadParam(
                    "0", "target bits/s, e.g. 100M; 0: as fast as it goes", lambda t: t if t == "0" else _size(t)
                )
            },
            lambda s, w: [
                ["iperf3", "-s", "-B", "127.0.0.1", "-p", str(w.port)],
                ["iperf3", "-c", "127.0.0.1", "-p", str(w.port), "-u", "-b", s["bitrate"], "-t", str(MAX_LOAD_S)],
            ],
            lambda s, w: 0.5,
            _guest_net,
        ),
        LoadKind(
            "sched",
            "hackbench: groups of processes passing messages, scheduler-heavy",
            "hackbench",
            "rt-tests",
            {"groups": LoadParam("2", "hackbench groups of 20 processes", values.positive)},
            lambda s, w: [["hackbench", "-P", "-g", str(s["groups"]), "-l", "1000000000"]],
            lambda s, w: 1.0,
            # fork and exec: a shell starting a program, over and over, per group.
            lambda s, w: [_loop("/bin/true")] * s["groups"],
        ),
        LoadKind(
            "hold",
            "rtscope's known culprit: a kernel thread keeps a CPU for us every every_us, with interrupts off, "
            "preemption off, or busy at SCHED_FIFO 90 (or prio) (rtscope's kernel module; QEMU guests only)",
            None,
            None,
            {
                "what": LoadParam("irqs", "irqs, preempt or fifo: how the CPU is kept", _hold_what),
                "us": LoadParam("500", "how long each hold keeps the CPU, in microseconds", values.positive),
                "every_us": LoadParam("20000", "the period of the holds, in microseconds", values.positive),
                "cpu": LoadParam("0", "the CPU held", values.non_negative),
                "prio": LoadParam(
                    "default",
                    "the holder's SCHED_FIFO priority, 1..99: above a bench's threads, where an irqs or preempt hold "
                    "must take their CPU (default: 90 for fifo, a normal kernel thread for irqs and preempt)",
                    _hold_prio,
                ),
            },
            _hold_on_host,
            # Its time is a kernel thread's, outside the loader's processes: the loader checks that the holds
            # happen instead, and ends (the run then says the load ended early) when they do not.
            lambda s, w: 0.0,
            _hold,
            kernel_module=True,
        ),
    )
}


@dataclass(frozen=True)
class LoadSpec:
    """A load to run: its kind and parameter settings (text, as given)."""

    kind: LoadKind
    settings: tuple[tuple[str, str], ...] = ()

    def __str__(self) -> str:
        return ":".join([self.kind.name, *(f"{key}={value}" for key, value in self.settings)])

    def values(self) -> dict[str, Any]:
        """Every parameter's value: the settings given, the defaults for the rest."""
        given = dict(self.settings)
        return {name: param.convert(given.get(name, param.default)) for name, param in self.kind.params.items()}


def parse(texts: list[str]) -> tuple[LoadSpec, ...]:
    """The loads of ``--load`` values: "cpu,net" (names), or one load with parameters, "cpu:cpus=1:load=50".

    Raises RtscopeError naming the value for an unknown load or parameter, a bad value, a load named
    twice, or idle combined with another load.
    """
    specs: list[LoadSpec] = []
    for text in texts:
        specs += [_parse_one(text)] if ":" in text else [_parse_one(name) for name in text.split(",")]
    names = [spec.kind.name for spec in specs]
    for name in names:
        if names.count(name) > 1:
            raise RtscopeError(f"--load: {name} is named twice")
    if "idle" in names and len(names) > 1:
        raise RtscopeError("--load: idle cannot be combined with another load")
    return tuple(specs)


def _parse_one(text: str) -> LoadSpec:
    name, *pairs = text.strip().split(":")
    kind = KINDS.get(name)
    if kind is None:
        raise RtscopeError(f"--load {text}: unknown load {name!r} (known: {', '.join(KINDS)})")
    settings = []
    for pair in pairs:
        key, equals, value = pair.partition("=")
        if not equals or key not in kind.params:
            known = ", ".join(kind.params) or "none"
            raise RtscopeError(
                f"--load {text}: {pair!r} is not KEY=VALUE with a parameter of {name} (its parameters: {known})"
            )
        settings.append((key, value))
    spec = LoadSpec(kind, tuple(settings))
    try:
        spec.values()
    except ValueError as error:
        raise RtscopeError(f"--load {text}: {error}") from None
    return spec


def check_tools(transport: Transport, specs: tuple[LoadSpec, ...]) -> None:
    """Raise RtscopeError naming the package to install when a load's tool is missing on the target."""
    for spec in specs:
        kind = spec.kind
        if kind.tool and not has_command(transport, kind.tool):
            raise RtscopeError(
                f"load {kind.name} needs {kind.tool}, which is not installed on the target "
                f"{transport.name} (Debian package {kind.package}; ./setup.sh installs it here)"
            )
