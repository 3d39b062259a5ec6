"""A run's square waves (docs/wave.md), as `show` tells them: per model and period, its cell of the
envelope (the max relative period error, coloured against 1 % and 10 %) and the signed period error —
wave.period's p50, min and max less the nominal period, as its histogram is of whole periods — with
the observer's checks."""

from rtscope.analysis import envelope
from rtscope.model import result, units
from rtscope.render import cells, fmt
from rtscope.render.document import Cell, Paragraph, Section, heading, table
from rtscope.render.fmt import MISSING
from rtscope.render.sections.envelope import error_cell, percent
from rtscope.render.subjects import OneRun

PERIOD = "wave.period"


def build(subject: OneRun) -> Section | None:
    """A row per wave the run measured; nothing when it measured none."""
    rows: list[list[str | Cell]] = []
    for error in (m for m in subject.doc["metrics"] if envelope.metric_name(m) == envelope.REL_ERROR):
        labels = result.labels(error)
        period = next(
            (m for m in subject.doc["metrics"] if envelope.metric_name(m) == PERIOD and result.labels(m) == labels),
            None,
        )
        nominal_ns = float(labels["period_us"]) * 1000
        # A period is the difference of two timestamps: no timestamp overhead to take off.
        signed = [
            _signed(period["stats"][key] - nominal_ns) if period and period["stats"][key] is not None else MISSING
            for key in ("p50", "min", "max")
        ]
        checks = period["checks"] if period else {}
        blind = checks.get("blind_fraction")
        rows.append(
            [
                str(labels["model"]),
                fmt.duration(nominal_ns),
                error_cell(error["stats"]["max"] if error["valid"] else None),
                *signed,
                *(fmt.count(checks.get(key)) for key in ("periods_judged", "missed_periods")),
                MISSING if blind is None else percent(blind),
                fmt.duration(checks.get("resolution_ns")),
                cells.validity(error),
            ]
        )
    if not rows:
        return None
    header = [
        "model",
        "period",
        "max rel. error",
        "error p50",
        "error min",
        "error max",
        "periods",
        "missed",
        "blind",
        "resolution",
        "validity",
    ]
    return Section(
        heading("Square wave", ", as the observer saw it"),
        (
            table(header, rows, "lrrrrrrrrrl"),
            Paragraph(
                (
                    "Max rel. error: the largest |period − nominal| / nominal (green under 1 %, yellow under 10 %).",
                    (
                        "Error: wave.period's p50, min and max less the nominal period. Periods: judged; missed: "
                        "longer than 1.5 × nominal;"
                    ),
                    "blind: the share of the run the observer was not looking; resolution: its median loop gap.",
                )
            ),
        ),
    )


def _signed(ns: float) -> str:
    """A signed duration: "+1.20 µs", "-850 ns", "0 ns"."""
    return ("+" if ns > 0 else "") + units.NS.format(ns)
