"""The text summary of one run: what `rtscope show` prints, and `rtscope run` after running."""

from typing import Any

from rtscope.analysis.worst_case import DEFAULT_PROBABILITY
from rtscope.render import cells, text
from rtscope.render.fmt import Style
from rtscope.render.sections import (
    benches,
    configuration,
    loads,
    metrics,
    os_config,
    over_time,
    run,
    spikes,
    system,
    tails,
    throughput,
    timing,
    warnings,
    wave,
    workload,
    worst_case,
)
from rtscope.render.subjects import OneRun

# The run, its system, its OS build's manifest (an RTOS's), timing calibration, requested vs granted configuration, the loads it ran under,
# warnings, benches, the metrics of samples and their tails' intervals, its square waves, its lines of the workload's
# table, their worst samples over time and their probabilistic worst case, the per-period metrics.
SECTIONS = (
    run.build,
    system.build,
    os_config.build,
    timing.build,
    configuration.build,
    loads.build,
    warnings.build,
    benches.build,
    metrics.build,
    tails.build,
    spikes.build,
    wave.build,
    workload.build_run,
    over_time.build,
    worst_case.build,
    throughput.build,
)


def render(
    doc: dict[str, Any], style: Style, *, adjusted: bool = True, probability: float = DEFAULT_PROBABILITY
) -> list[str]:
    """The lines of the summary of result document ``doc``: :data:`SECTIONS`, times overhead-adjusted
    unless ``adjusted`` is False, the worst case exceeded with ``probability`` per activation."""
    subject = OneRun(doc, adjusted, probability)
    return text.render((build(subject) for build in SECTIONS), style)


def describe_status(status: str, style: Style) -> str:
    """A run or bench status, in colour when it is not a good one."""
    return text.paint(cells.status(status), style)
