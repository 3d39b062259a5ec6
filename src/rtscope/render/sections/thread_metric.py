"""Thread-Metric across runs: each test's median iterations relative to its calibration test's, as bars,
and the share of each test's measured time its harness took."""

from rtscope.model import result
from rtscope.render import fmt, plots, svg
from rtscope.render.document import Figure, Paragraph, Section, Table, cells, heading
from rtscope.render.sections.throughput import baseline_text
from rtscope.render.subjects import Report, Run


def build(report: Report) -> Section | None:
    """Bars of each per-period metric's ratio to its calibration metric, per run, on a log axis centred
    on 1 (the calibration test itself); nothing when no run has such a metric."""
    measured = [
        (run, m) for run in report.runs for m in run.doc["metrics"] if result.is_periodic(m) and m.get("baseline")
    ]
    categories = list(dict.fromkeys(m["id"] for _, m in measured if m["id"] != m["baseline"]["metric"]))
    if not categories:
        return None
    baseline = measured[0][1]["baseline"]["metric"]
    # A ratio of 0 (no iteration at all) has no place on a log axis: its bar reaches the bottom.
    ratios = [m["baseline"]["ratio"] for _, m in measured if m["id"] in categories and m["baseline"]["ratio"]]
    y_axis = svg.Axis(
        min([*ratios, 1.0]) / plots.MARGIN,
        max([*ratios, 1.0]) * plots.MARGIN,
        log=True,
        tick_text=lambda value: svg.tick_number(value) + "×",
        label=f"× {baseline} (log scale)",
    )
    with_bars = list(
        {
            run.index: (run, m) for run, m in measured if m["id"] in categories and m["baseline"]["ratio"] is not None
        }.values()
    )
    parts: list[Paragraph | Figure | Table] = [
        Paragraph(
            (
                (
                    f"Each test's median iterations per reporting period over {baseline}'s in the same run: the "
                    "figure that carries across processors. Above 1: more iterations than the calibration test."
                ),
            )
        )
    ]
    for chart_runs in plots.by_colour(with_bars):
        chart = svg.Chart(
            svg.Bands(categories), y_axis, title=f"Thread-Metric relative to {baseline}, runs {plots.names(chart_runs)}"
        )
        for index, metric_id in enumerate(categories):
            chart.bars(index, [_bar(run, metric_id) for run, _ in chart_runs], base=1)
        chart.reference(1, baseline)
        parts.append(Figure(chart, plots.legend([run for run, _ in chart_runs])))
    missing = [
        f"{run.name} {m['id']}" for run, m in measured if m["id"] in categories and m["baseline"]["ratio"] is None
    ]
    if missing:
        parts.append(
            Paragraph((f"No bar: {', '.join(missing)} (no ratio: the metric or {baseline} is invalid or missing).",))
        )
    parts.extend(_harness(report, [baseline, *categories]))
    return Section(heading("Thread-Metric", ", relative to its calibration test"), tuple(parts), anchor="thread-metric")


def _harness(report: Report, tests: list[str]) -> list[Paragraph | Table]:
    """A row per run that recorded it: the share of each test's measured time its harness took (the
    checks harness_share, from the test's loop timed without its work); nothing when no run has one."""
    rows = []
    for run in report.runs:
        shares = [(result.metric(run.doc, test) or {}).get("checks", {}).get("harness_share") for test in tests]
        if any(share is not None for share in shares):
            rows.append(cells(run.name, *("—" if share is None else f"{share * 100:.1f} %" for share in shares)))
    if not rows:
        return []
    return [
        Paragraph(
            (
                (
                    "The harness's share of each test's measured time: its loop without the test's work (the "
                    "stop check, the counter, rtscope's own checks), timed in the same run before the periods, "
                    "times the loop's passes. What is left of each iteration is the test's own."
                ),
            )
        ),
        Table(("run", *tests), tuple(rows), "l" + "r" * len(tests)),
    ]


def _bar(run: Run, metric_id: str) -> tuple[float, str, str] | None:
    metric_doc = result.metric(run.doc, metric_id)
    if metric_doc is None or not metric_doc["baseline"] or metric_doc["baseline"]["ratio"] is None:
        return None
    return (
        metric_doc["baseline"]["ratio"],
        run.colour,
        (
            f"{run.caption} {metric_id}: {baseline_text(metric_doc)}, median "
            f"{result.unit(metric_doc).format(metric_doc['stats']['p50'])} per {fmt.seconds(metric_doc['period_s'])}"
        ),
    )
