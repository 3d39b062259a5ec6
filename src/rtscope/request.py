"""What the user asks a target to run: benches, duration and real-time configuration."""

from dataclasses import dataclass

from rtscope import fmt


@dataclass(frozen=True)
class ParamSetting:
    """A ``--param [BENCH:]key=value``: for one bench, or for every bench that has ``key``."""

    bench: str | None
    key: str
    value: str

    def __str__(self) -> str:
        return f"{self.bench}:{self.key}={self.value}" if self.bench else f"{self.key}={self.value}"

    def applies_to(self, bench_id: str) -> bool:
        """Whether this setting names ``bench_id`` or names no bench at all."""
        return self.bench in (None, bench_id)


@dataclass(frozen=True)
class RunRequest:
    """A validated request to run benches; ``probe_args`` turns it into the probe's arguments."""

    benches: tuple[str, ...]
    duration_s: float
    policy: str
    priority: int
    cpus: tuple[int, ...] = ()
    params: tuple[ParamSetting, ...] = ()
    label: str | None = None
    raw: int | None = None
    mlock: bool = True
    cpu_latency: bool = True
    refuse_privilege: bool = False
    grace_s: float | None = None

    def probe_args(self) -> list[str]:
        """The arguments of ``rtscope-probe run`` for this request, output options excepted."""
        args = [*self.benches, "--duration", fmt.exact(self.duration_s),
                "--policy", self.policy, "--priority", str(self.priority)]
        if self.cpus:
            args += ["--cpus", ",".join(map(str, self.cpus))]
        for setting in self.params:
            args += ["--param", str(setting)]
        if self.label is not None:
            args += ["--label", self.label]
        if self.raw is not None:
            args += ["--raw", str(self.raw)]
        if not self.mlock:
            args.append("--no-mlock")
        if not self.cpu_latency:
            args.append("--no-cpu-latency")
        if self.refuse_privilege:
            args.append("--refuse-privilege")
        if self.grace_s is not None:
            args += ["--grace", fmt.exact(self.grace_s)]
        return args
