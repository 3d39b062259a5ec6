"""The system the run measured: host, kernel, CPUs and the settings that matter to real-time work."""

from rtscope.render import cells
from rtscope.render.document import Section, heading, table
from rtscope.render.fmt import MISSING
from rtscope.render.subjects import OneRun


def build(subject: OneRun) -> Section:
    """Host, kernel, CPU, clocksource, governor, isolated CPUs, RT throttling, virtualization."""
    doc = subject.doc
    system = doc["system"]
    return Section(
        heading("System"),
        (
            table(
                None,
                [
                    ("host", cells.host_text(doc, system["os"], system["arch"])),
                    ("kernel", cells.kernel_text(system)),
                    ("CPU", cells.cpu_text(doc)),
                    ("clocksource", cells.or_missing(system["clocksource"])),
                    ("governor", cells.or_missing(system["governor"])),
                    ("isolated CPUs", _isolated_cpus_text(system["isolated_cpus"])),
                    ("RT throttling", _rt_throttling_text(system["rt_runtime_us"], system["rt_period_us"])),
                    ("virtualization", cells.or_missing(system["virtualization"])),
                ],
                "ll",
            ),
        ),
    )


def _isolated_cpus_text(cpus: str | None) -> str:
    """The isolated CPUs as the kernel lists them, "none", or "—" when unknown."""
    if cpus is None:
        return MISSING
    return cpus or "none"


def _rt_throttling_text(runtime_us: int | None, period_us: int | None) -> str:
    """ "95 % (950000/1000000 µs)"; "off" when the runtime is -1 (no throttling)."""
    if runtime_us == -1:
        return "off (RT tasks may use all CPU time)"
    if runtime_us is None or not period_us:
        return MISSING
    return f"{100 * runtime_us / period_us:.3g} % ({runtime_us}/{period_us} µs)"
