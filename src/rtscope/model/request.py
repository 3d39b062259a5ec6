"""What the user asks a target to run: benches, duration and real-time configuration."""

from dataclasses import dataclass

from rtscope.model.values import ParamSetting, exact


@dataclass(frozen=True)
class RunRequest:
    """A validated request to run benches; ``probe_args`` turns it into the probe's arguments.
    ``duration_given``: whether the user gave the duration; one left to the default a target may size to
    what it delivers (an emulated board in instruction time). ``seed``: the probe starts each bench after
    a wait drawn from it (``--seed``), what a rerun varies on a target that otherwise repeats to the bit.
    ``series_window_s``: the window of the latency benches' series of worst samples (``--series-window``,
    at most ``duration_s``); None: the probe's (1 s)."""

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
    rt_throttling_off: bool = False
    refuse_privilege: bool = False
    grace_s: float | None = None
    duration_given: bool = True
    seed: int | None = None
    # No progress, summary or warnings on the probe's stderr (its --quiet): the document has them all, and a
    # monitor says what it needs of each window in one line.
    quiet: bool = False
    series_window_s: float | None = None

    def probe_args(self) -> list[str]:
        """The arguments of ``rtscope-probe run`` for this request, output options excepted."""
        args = [
            *self.benches,
            "--duration",
            exact(self.duration_s),
            "--policy",
            self.policy,
            "--priority",
            str(self.priority),
        ]
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
        if self.rt_throttling_off:
            args += ["--rt-throttling", "off"]
        if self.refuse_privilege:
            args.append("--refuse-privilege")
        if self.grace_s is not None:
            args += ["--grace", exact(self.grace_s)]
        if self.seed is not None:
            args += ["--seed", str(self.seed)]
        if self.series_window_s is not None:
            args += ["--series-window", exact(self.series_window_s)]
        if self.quiet:
            args.append("--quiet")
        return args
