"""The page of rtscope report: runs, their systems and configuration, plots, ratios to the first run and
each run's summary tables, as one self-contained HTML file.

The style sheet is inline and the plots are inline SVG drawn by rtscope.svg: the page fetches nothing
and runs no script. Every string from a result document is escaped: the page is built from plain text,
escaped where it is inserted, and :class:`Html`, markup made here from escaped parts.

Tables are overhead-adjusted unless asked otherwise, as `show` prints them; plots show times as
measured, because that is what the probe's histograms and series hold.
"""

import bisect
import html
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from rtscope import __version__
from rtscope.render import fmt
from rtscope.model import result
from rtscope.render import summary
from rtscope.render import svg
from rtscope.analysis.grouping import LETTERS, SHORT_ID
from rtscope.render.fmt import MISSING

# Statistics of the ratio tables, as `compare` shows them by default.
_RATIO_STATISTICS = ("p50", "p99", "max")
# A histogram is redrawn in about this many bins, evenly spaced on its log axis, so that runs overlay
# readably; never finer than the probe's buckets (at most 0.78 % wide).
_HISTOGRAM_BINS = 160
_FINEST_BIN = 1.008
_MOST_STEPS = 300  # steps of a worst-latency-over-time line: about two pixels each
_COUNT_FLOOR = 0.6  # bottom of a log count axis: a bin of one sample stands clear of an empty one
_BOX_QUANTILES = (0.25, 0.5, 0.75, 0.99)
_MARGIN = 1.5  # factor of room around the data on a log axis
_BOX_COLOUR = svg.PALETTE[0]
_AS_MEASURED = "latency, µs (log scale), as measured"
_STYLE = """
body{font:14px/1.45 system-ui,sans-serif;color:#222;margin:24px auto;max-width:1200px;padding:0 16px}
h1{font-size:24px}h2{font-size:19px;margin-top:36px;border-bottom:1px solid #ccc}h3{font-size:16px}
table{border-collapse:collapse;margin:8px 0 16px}th,td{padding:3px 9px;border-bottom:1px solid #e4e4e4;
text-align:left;vertical-align:top}th{background:#f4f4f4}
td.r,th.r{text-align:right;font-variant-numeric:tabular-nums}
.bad{color:#b00020}.warn{color:#9a5b00}
figure{margin:12px 0 24px}figcaption{font-size:13px;color:#444;max-width:760px}
.legend{list-style:none;padding:0;margin:4px 0}.legend li{display:inline-block;margin-right:14px}
.swatch{display:inline-block;width:12px;height:12px;margin-right:5px;vertical-align:-1px;border-radius:2px}
svg.plot{max-width:100%;height:auto;font:12px system-ui,sans-serif}svg.plot text{fill:#333}
svg.plot .grid{stroke:#e6e6e6}svg.plot .frame{stroke:#333;fill:none}
svg.plot .note{font-size:11px;paint-order:stroke;stroke:#fff;stroke-width:3px}
nav ul{columns:3;padding-left:18px}.wide{overflow-x:auto;font-size:13px}.wide td:first-child{white-space:nowrap}
"""


class Html(str):
    """Markup made here from escaped parts: inserted as it is, where a plain str is escaped."""


class _HtmlStyle(fmt.Style):
    """The text summary's emphasis as HTML: with it, summary's row builders give the cells of the
    report's tables, marked as `show` colours them."""

    def __init__(self) -> None:
        super().__init__(enabled=True)

    def warn(self, text: str) -> str:
        return _element("span", text, class_="warn")

    def bad(self, text: str) -> str:
        return _element("span", text, class_="bad")

    def heading(self, text: str) -> str:
        return _element("strong", text)


_HTML = _HtmlStyle()


@dataclass(frozen=True)
class _Run:
    """A run as the report shows it: its name ("A"), its colour in the plots and its document."""

    index: int
    doc: dict[str, Any]

    @property
    def name(self) -> str:
        """A, B, … Z, then AA, AB …: runs are named as `compare` names them, beyond 26 too."""
        number, name = self.index + 1, ""
        while number:
            number, digit = divmod(number - 1, len(LETTERS))
            name = LETTERS[digit] + name
        return name

    @property
    def colour(self) -> str:
        return svg.PALETTE[self.index % len(svg.PALETTE)]

    @property
    def caption(self) -> str:
        """The name and what tells the run apart: "B lab: load=cpu #2", "A stock kernel", "C host 0123abcd"."""
        campaign, run = self.doc.get("campaign"), self.doc["run"]
        if campaign:
            return f"{self.name} {campaign['name']}: {campaign['cell']} #{campaign['repetition']}"
        return f"{self.name} {run['label'] or self.doc['system']['hostname'] + ' ' + run['id'][:8]}"


Measured = tuple[_Run, dict[str, Any]]  # a run and its document of one metric


def render(results: Sequence[result.Result], *, adjusted: bool = True) -> str:
    """The report on ``results``, in the order given, as the text of an HTML file; the tables' times are
    overhead-adjusted unless ``adjusted`` is False."""
    runs = [_Run(index, run_result.doc) for index, run_result in enumerate(results)]
    first_measured: dict[str, dict[str, Any]] = {}  # each metric as the first run that has it recorded it
    for run in runs:
        for metric_doc in run.doc["metrics"]:
            first_measured.setdefault(metric_doc["id"], metric_doc)
    metric_ids = list(first_measured)
    time_ids = [metric_id for metric_id, metric_doc in first_measured.items() if not result.is_periodic(metric_doc)]
    thread_metric = _thread_metric(runs)
    ratios = _ratios(runs, metric_ids, adjusted)
    contents = [("runs", "Runs"), *((_anchor(metric_id), metric_id) for metric_id in time_ids),
                *([("thread-metric", "Thread-Metric")] if thread_metric else []),
                *([("ratios", "Ratios")] if ratios else []),
                *((f"run-{run.name}", f"Run {run.caption}") for run in runs)]
    body = [_element("h1", "rtscope report"),
            _element("p", f"{len(runs)} run{'s' if len(runs) != 1 else ''}; made by rtscope {__version__}. "
                          f"Tables: times {'overhead-adjusted' if adjusted else 'as measured'}. "
                          "Plots: times as measured (the probe's histograms and series)."),
            _element("nav", _element("ul", *(_element("li", _element("a", text, href=f"#{anchor}"))
                                             for anchor, text in contents))),
            _section("runs", "Runs", _overview(runs)),
            *(_section(_anchor(metric_id), metric_id, _time_metric(runs, metric_id)) for metric_id in time_ids),
            *([_section("thread-metric", "Thread-Metric, relative to its calibration test", thread_metric)]
              if thread_metric else []),
            *([_section("ratios", "Ratios to the first run", ratios)] if ratios else []),
            *(_section(f"run-{run.name}", f"Run {run.caption}", _details(run, adjusted)) for run in runs)]
    return ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
            f"{_element('title', f'rtscope report: {len(runs)} run' + ('s' if len(runs) != 1 else ''))}"
            f"<style>{_STYLE}</style></head>\n<body>\n" + "\n".join(body) + "\n</body></html>\n")


# Page parts


def _escape(part: str) -> str:
    return part if isinstance(part, Html) else html.escape(part)


def _element(tag: str, *children: str, **attributes: str) -> Html:
    """``<tag attributes>children</tag>``; attribute ``class_`` is written ``class``."""
    written = "".join(f' {name.rstrip("_")}="{html.escape(value)}"' for name, value in attributes.items())
    return Html(f"<{tag}{written}>{''.join(map(_escape, children))}</{tag}>")


def _section(anchor: str, title: str, parts: Sequence[str]) -> Html:
    return _element("section", _element("h2", title), *parts, id=anchor)


def _anchor(metric_id: str) -> str:
    return f"metric-{metric_id}"


def _table(header: Sequence[str], rows: Sequence[Sequence[str]], align: str) -> Html:
    """A table with a header row; ``align`` has a letter per column as in fmt.columns: "l" for text,
    "r" for numbers."""
    def row(tag: str, cells: Sequence[str]) -> Html:
        return _element("tr", *(_element(tag, cell, class_=side) for cell, side in zip(cells, align, strict=True)))

    return _element("table", _element("thead", row("th", header)),
                    _element("tbody", *(row("td", cells) for cells in rows)))


def _pairs(pairs: Sequence[tuple[str, str]]) -> Html:
    """A two-column table of names and values."""
    return _element("table", *(_element("tr", _element("th", name), _element("td", value))
                               for name, value in pairs))


def _swatch(run: _Run) -> Html:
    return _element("span", "", class_="swatch", style=f"background:{run.colour}")


def _figure(chart: svg.Chart, runs: Sequence[_Run], notes: Sequence[str]) -> Html:
    """A chart with, under it, the colour of each run drawn and notes on how to read it."""
    legend = _element("ul", *(_element("li", _swatch(run), run.caption) for run in runs), class_="legend")
    return _element("figure", Html(chart.svg()), _element("figcaption", legend if runs else "", " ".join(notes)))


def _by_colour(measured: Sequence[Measured]) -> list[list[Measured]]:
    """``measured`` in charts of at most as many runs as there are colours, each run keeping its colour."""
    charts: dict[int, list[Measured]] = {}
    for run, metric_doc in measured:
        charts.setdefault(run.index // len(svg.PALETTE), []).append((run, metric_doc))
    return list(charts.values())


def _names(measured: Sequence[Measured]) -> str:
    return ", ".join(run.name for run, _ in measured)


def _micros(ns: float) -> float:
    return ns / 1000


def _latency_axis(low_ns: float, high_ns: float, label: str) -> svg.Axis:
    """A log axis in µs from ``low_ns`` to ``high_ns``; from 1 ns at least, as a log axis has no 0."""
    return svg.Axis(_micros(max(low_ns, 1)), _micros(max(high_ns, 1)), log=True, tick_text=svg.tick_number,
                    label=label)


# Runs


def _overview(runs: Sequence[_Run]) -> list[str]:
    rows = []
    for run in runs:
        doc, system = run.doc, run.doc["system"]
        config, campaign = doc["config"], doc.get("campaign")
        granted = f"{config['granted']['policy']} {config['granted']['priority']}"
        if config["requested"] != config["granted"]:
            granted = _HTML.warn(f"! {granted}")
        rows.append([_element("span", _swatch(run), _element("a", run.name, href=f"#run-{run.name}")),
                     doc["run"]["id"][:SHORT_ID], doc["run"]["label"] or MISSING, system["hostname"],
                     summary.kernel_text(system), _cpu(system), granted,
                     fmt.local_time(doc["run"]["started"]), summary.describe_status(doc["run"]["status"], _HTML),
                     f"{campaign['name']}: {campaign['cell']} #{campaign['repetition']}" if campaign else MISSING,
                     ", ".join(load["name"] for load in doc.get("loads") or []) or "none",
                     _HTML.warn(f"! {len(config['warnings'])}") if config["warnings"] else "none"])
    header = ["run", "id", "label", "host", "kernel", "CPU", "granted", "started", "status", "campaign cell",
              "loads", "warnings"]
    parts = [_element("div", _table(header, rows, "l" * len(header)), class_="wide")]
    if any(run.doc["config"]["requested"] != run.doc["config"]["granted"] for run in runs):
        parts.append(_element("p", "! granted: the run did not get all the real-time setup it asked for; its "
                                   "details say what it got."))
    return parts


def _cpu(system: dict[str, Any]) -> str:
    online = f" (online {system['cpus_online']})" if system["cpus_online"] else ""
    return f"{system['cpu_model'] or 'unknown model'} × {system['cpu_count']}{online}"


# One time metric: its distribution, its worst latency over time, its spread across runs


def _time_metric(runs: Sequence[_Run], metric_id: str) -> list[str]:
    measured = [(run, m) for run in runs if (m := result.metric(run.doc, metric_id)) is not None]
    description = measured[0][1]["description"]
    sampled = [(run, m) for run, m in measured if _samples(m["histogram"])]
    if not sampled:
        return [_element("p", f"{description}. No run has a sample of it.")]
    return [_element("p", description), _element("h3", "Distribution"), *_histograms(metric_id, sampled),
            *_over_time(metric_id, sampled), _element("h3", "Spread across runs"), _spread(metric_id, sampled)]


def _samples(histogram: dict[str, Any]) -> int:
    return sum(count for _, _, count in histogram["buckets"]) + histogram["overflow"]


def _histograms(metric_id: str, measured: Sequence[Measured]) -> list[str]:
    """Each run's histogram as a line over log-spaced bins, on log axes; runs overlaid, up to one
    per colour in a chart, every chart with the same axes."""
    # Runs whose every sample lies beyond the histogram have no bucket (the notes say so).
    bucketed = [m["histogram"]["buckets"] for _, m in measured if m["histogram"]["buckets"]]
    low = max(1, min((buckets[0][0] for buckets in bucketed), default=1))
    edges = _bin_edges(low, max((buckets[-1][0] + buckets[-1][1] for buckets in bucketed), default=2 * low))
    counts = {run.index: _rebin(m["histogram"], edges) for run, m in measured}
    bin_width = 100 * (edges[-1] / edges[0]) ** (1 / (len(edges) - 1)) - 100
    notes = [f"Samples per bin; bins about {fmt.significant(bin_width, 2)} % wide, evenly spaced on the log axis."]
    notes += [f"{run.name}: {fmt.count(m['histogram']['overflow'])} samples at or above "
              f"{fmt.duration(m['histogram']['overflow_above'])} lie beyond the histogram and are not drawn."
              for run, m in measured if m["histogram"]["overflow"]]
    figures = []
    for chart_runs in _by_colour(measured):
        chart = svg.Chart(_latency_axis(edges[0], edges[-1], _AS_MEASURED),
                          svg.Axis(_COUNT_FLOOR, max(max(c) for c in counts.values()) * 2, log=True,
                                   tick_text=svg.tick_number, label="samples (log scale)"),
                          title=f"{metric_id}: histogram of runs {_names(chart_runs)}")
        for run, m in chart_runs:
            chart.line(_steps(edges, counts[run.index]), run.colour,
                       title=f"{run.caption}: {fmt.count(_samples(m['histogram']))} samples")
        figures.append(_figure(chart, [run for run, _ in chart_runs], notes))
    return figures


def _bin_edges(low: float, high: float) -> list[int]:
    """Bin edges from ``low`` to past ``high`` (ns), evenly spaced on a log scale but at least 1 ns apart:
    samples are whole nanoseconds, and narrower bins would leave every other one empty."""
    step = max(_FINEST_BIN, (high / low) ** (1 / _HISTOGRAM_BINS))
    edges = [math.floor(low)]
    while edges[-1] < high:
        edges.append(max(edges[-1] + 1, math.ceil(edges[-1] * step)))
    return edges


def _rebin(histogram: dict[str, Any], edges: Sequence[int]) -> list[int]:
    """The histogram's samples per bin of ``edges``, each bucket in the bin of its middle."""
    counts = [0] * (len(edges) - 1)
    for lower, width, count in histogram["buckets"]:
        index = bisect.bisect_right(edges, lower + width / 2) - 1
        counts[min(max(index, 0), len(counts) - 1)] += count
    return counts


def _steps(edges: Sequence[int], counts: Sequence[int]) -> list[svg.Point | None]:
    """The outline of a histogram: a corner wherever the count changes, so that a run of equal (often
    empty) bins is one stretch. An empty bin lies on the x axis: a log axis has no 0, the chart puts it
    at its bottom."""
    points: list[svg.Point | None] = []
    level = 0
    for edge, count in zip(edges, [*counts, 0], strict=True):
        if count != level:
            points += [(_micros(edge), level), (_micros(edge), count)]
            level = count
    return points


def _over_time(metric_id: str, measured: Sequence[Measured]) -> list[str]:
    """The worst sample of each window of the runs that keep a series, on a log axis, with the
    threshold the bench counted samples above (if any)."""
    kept = [(run, m) for run, m in measured if m.get("series") and any(v is not None for v in m["series"]["max"])]
    if not kept:
        return []
    thresholds = sorted({m["threshold"]["ns"] for _, m in measured if m.get("threshold")})
    worst = [v for _, m in kept for v in m["series"]["max"] if v is not None] + thresholds
    y_axis = _latency_axis(min(worst) / _MARGIN, max(worst) * _MARGIN, "worst sample, µs (log scale)")
    x_axis = svg.Axis(0, max(len(m["series"]["max"]) * m["series"]["window_s"] for _, m in kept),
                      tick_text=svg.tick_number, label="time since the bench started, s")
    windows = sorted({fmt.seconds(m["series"]["window_s"]) for _, m in kept})
    notes = [f"The worst sample of each {' or '.join(windows)} window, as measured, drawn across its window; "
             "a gap is a window without samples."]
    if any(len(m["series"]["max"]) > _MOST_STEPS for _, m in kept):
        notes.append(f"A series of more than {_MOST_STEPS} windows is drawn in {_MOST_STEPS} steps or fewer, each "
                     "the worst of the windows it spans.")
    notes += [f"{run.name}: {fmt.count(m['series']['dropped'])} samples fell outside the windows kept."
              for run, m in kept if m["series"]["dropped"]]
    figures = []
    for chart_runs in _by_colour(kept):
        chart = svg.Chart(x_axis, y_axis, title=f"{metric_id}: worst sample over time, runs {_names(chart_runs)}")
        for threshold in thresholds:
            chart.reference(_micros(threshold), f"threshold {fmt.duration(threshold)}")
        for run, m in chart_runs:
            worst_window = max(v for v in m["series"]["max"] if v is not None)
            chart.line(_window_steps(m["series"]), run.colour,
                       title=f"{run.caption}: worst {fmt.duration(worst_window)}")
        figures.append(_figure(chart, [run for run, _ in chart_runs], notes))
    return [_element("h3", "Worst latency over time"), *figures]


def _window_steps(series: dict[str, Any]) -> list[svg.Point | None]:
    """The worst sample of each window as a level across the window, broken where a window has none;
    a long series in at most _MOST_STEPS steps, each the worst of the windows it spans."""
    worst, window = series["max"], series["window_s"]
    span = math.ceil(len(worst) / _MOST_STEPS)
    points: list[svg.Point | None] = []
    for first in range(0, len(worst), span):
        kept = [value for value in worst[first:first + span] if value is not None]
        last = min(first + span, len(worst))
        points += [(first * window, _micros(max(kept))), (last * window, _micros(max(kept)))] if kept else [None]
    return points


@dataclass(frozen=True)
class _Box:
    """What a box plot draws of a distribution (ns, as measured)."""

    low: float
    quartile1: float
    median: float
    quartile3: float
    p99: float
    high: float


def _spread(metric_id: str, measured: Sequence[Measured]) -> Html:
    """One box per group of runs (a campaign cell, else a label, else each run alone) on a log axis."""
    groups = _groups(measured)
    boxes = [_box([m for _, m in members]) for _, members in groups]
    x_axis = _latency_axis(min(box.low for box in boxes) / _MARGIN, max(box.high for box in boxes) * _MARGIN,
                           _AS_MEASURED)
    chart = svg.Chart(x_axis, svg.Bands([name for name, _ in groups]), title=f"{metric_id}: spread across runs",
                      height=svg.BAND_HEIGHT * len(groups) + 70)
    for index, ((name, members), box) in enumerate(zip(groups, boxes, strict=True)):
        dots = [_micros(m["stats"]["p99"]) for _, m in members
                if len(members) > 1 and m["stats"]["p99"] is not None]
        chart.box(index, (_micros(box.low), _micros(box.p99)), (_micros(box.quartile1), _micros(box.quartile3)),
                  _micros(box.median), extreme=_micros(box.high), dots=dots, colour=_BOX_COLOUR,
                  title=f"{name}: min {fmt.duration(box.low)}, p25 {fmt.duration(box.quartile1)}, "
                        f"p50 {fmt.duration(box.median)}, p75 {fmt.duration(box.quartile3)}, "
                        f"p99 {fmt.duration(box.p99)}, max {fmt.duration(box.high)}")
    return _figure(chart, [], [
        "Box p25 to p75, thick line p50 (read from the histograms, a group's runs pooled); whiskers min to "
        "p99; ring max; dots: each run's own p99 in a group of several. Groups: campaign cells, else labels, "
        "else runs."])


def _groups(measured: Sequence[Measured]) -> list[tuple[str, list[Measured]]]:
    """``measured`` grouped by campaign cell, else by label, else one group per run, in order of first
    appearance, each with its name."""
    groups: dict[tuple[str, ...], tuple[str, list[Measured]]] = {}
    for run, metric_doc in measured:
        campaign, label = run.doc.get("campaign"), run.doc["run"]["label"]
        if campaign:
            key, name = ("campaign", campaign["id"], campaign["cell"]), f"{campaign['name']}: {campaign['cell']}"
        elif label:
            key, name = ("label", label), label
        else:
            key, name = ("run", run.name), run.caption
        groups.setdefault(key, (name, []))[1].append((run, metric_doc))
    return [(name if len(members) == 1 and name == members[0][0].caption else
             f"{name} ({_names(members)})", members) for name, members in groups.values()]


def _box(metric_docs: Sequence[dict[str, Any]]) -> _Box:
    """The box of the metrics' samples together: quantiles read from their histograms (interpolated in
    the bucket, as measured), min and max exact."""
    buckets = sorted(bucket for m in metric_docs for bucket in m["histogram"]["buckets"])
    total = sum(_samples(m["histogram"]) for m in metric_docs)
    low = min(m["stats"]["min"] for m in metric_docs if m["stats"]["min"] is not None)
    high = max(m["stats"]["max"] for m in metric_docs if m["stats"]["max"] is not None)

    def quantile(share: float) -> float:
        rank, seen = share * total, 0
        for lower, width, count in buckets:
            if seen + count >= rank:
                return min(max(lower + width * (rank - seen) / count, low), high)
            seen += count
        return high  # the rank lies among the samples beyond the histogram

    return _Box(low, *(quantile(share) for share in _BOX_QUANTILES), high)


# Thread-Metric


def _thread_metric(runs: Sequence[_Run]) -> list[str]:
    """Bars of each count metric's median relative to its calibration metric's, per run, on a log axis
    centred on 1 (the calibration test itself)."""
    measured = [(run, m) for run in runs for m in run.doc["metrics"] if result.is_periodic(m) and m.get("baseline")]
    categories = list(dict.fromkeys(m["id"] for _, m in measured if m["id"] != m["baseline"]["metric"]))
    if not categories:
        return []
    baseline = measured[0][1]["baseline"]["metric"]
    # A ratio of 0 (no iteration at all) has no place on a log axis: its bar reaches the bottom.
    ratios = [m["baseline"]["ratio"] for _, m in measured if m["id"] in categories and m["baseline"]["ratio"]]
    y_axis = svg.Axis(min([*ratios, 1.0]) / _MARGIN, max([*ratios, 1.0]) * _MARGIN, log=True,
                      tick_text=lambda value: svg.tick_number(value) + "×",
                      label=f"× {baseline} (log scale)")
    with_bars = list({run.index: (run, m) for run, m in measured
                      if m["id"] in categories and m["baseline"]["ratio"] is not None}.values())
    figures = []
    for chart_runs in _by_colour(with_bars):
        chart = svg.Chart(svg.Bands(categories), y_axis, title=f"Thread-Metric relative to {baseline}, "
                                                              f"runs {_names(chart_runs)}")
        for index, metric_id in enumerate(categories):
            chart.bars(index, [_thread_metric_bar(run, metric_id) for run, _ in chart_runs], base=1)
        chart.reference(1, baseline)
        figures.append(_figure(chart, [run for run, _ in chart_runs], []))
    missing = [f"{run.name} {m['id']}" for run, m in measured
               if m["id"] in categories and m["baseline"]["ratio"] is None]
    note = [_element("p", f"No bar: {', '.join(missing)} (no ratio: the metric or {baseline} is invalid or "
                          "missing).")]
    return [_element("p", f"Each test's median iterations per reporting period over {baseline}'s in the same run: "
                          "the figure that carries across processors. Above 1: more iterations than the "
                          "calibration test."), *figures, *(note if missing else [])]


def _thread_metric_bar(run: _Run, metric_id: str) -> tuple[float, str, str] | None:
    metric_doc = result.metric(run.doc, metric_id)
    if metric_doc is None or not metric_doc["baseline"] or metric_doc["baseline"]["ratio"] is None:
        return None
    return (metric_doc["baseline"]["ratio"], run.colour,
            f"{run.caption} {metric_id}: {summary.baseline_text(metric_doc)}, median "
            f"{fmt.figure(metric_doc['stats']['p50'], 'count')} per {fmt.seconds(metric_doc['period_s'])}")


# Ratios to the first run


def _ratios(runs: Sequence[_Run], metric_ids: Sequence[str], adjusted: bool) -> list[str]:
    """Per metric that two runs or more measured: each run's p50, p99 and max (a count metric's median
    and its ratio to its calibration metric), and how many times the first such run's each is, as
    `compare` shows them."""
    tables = []
    for metric_id in metric_ids:
        measured = [(run, m) for run in runs if (m := result.metric(run.doc, metric_id)) is not None]
        if len(measured) < 2:
            continue
        first_run, first = measured[0]
        statistics = _ratio_statistics(first, adjusted)
        header = ["run", *(text for name, _, _ in statistics for text in (name, f"÷ {first_run.name}"))]
        rows = [_ratio_row(run, metric_doc, first, statistics) for run, metric_doc in measured]
        tables += [_element("h3", metric_id), _table(header, rows, "l" + "r" * (len(header) - 1))]
    if not tables:
        return []
    what = "overhead-adjusted" if adjusted else "as measured"
    return [_element("p", f"Each run's figure ({what}) and how many times the first run's it is, of the runs that "
                          "measured the metric; an invalid metric's reason is in its run's details. One run each "
                          "says nothing of the run-to-run spread: rtscope compare tells whether two runs really "
                          "differ."), *tables]


Statistic = tuple[str, Callable[[dict[str, Any]], float | None], str]  # heading, how to read it, unit


def _ratio_statistics(metric_doc: dict[str, Any], adjusted: bool) -> list[Statistic]:
    if not result.is_periodic(metric_doc):
        return [(result.STATISTICS[key], lambda m, key=key: result.summary(m, adjusted=adjusted)[key], "ns")
                for key in _RATIO_STATISTICS]
    statistics: list[Statistic] = [("p50 per period", lambda m: m["stats"]["p50"], "count")]
    if metric_doc["baseline"]:
        statistics.append((f"× {metric_doc['baseline']['metric']}",
                           lambda m: m["baseline"]["ratio"] if m["baseline"] else None, "ratio"))
    return statistics


def _ratio_row(run: _Run, metric_doc: dict[str, Any], first: dict[str, Any], statistics: list[Statistic]
               ) -> list[str]:
    row = [run.caption]
    for _, read, unit in statistics:
        value, base = read(metric_doc), read(first)
        shown = fmt.ratio(value) if unit == "ratio" else fmt.figure(value, unit)
        row += [shown if metric_doc["valid"] else _HTML.bad(f"{shown} (invalid)"),
                fmt.ratio(value / base) if value is not None and base else MISSING]
    return row


# Each run in detail


def _details(run: _Run, adjusted: bool) -> list[str]:
    """What `show` tells of the run, as tables: the run, its system, configuration, warnings, loads,
    benches and metrics."""
    doc = run.doc
    parts = [_pairs(_run_pairs(doc)), _element("h3", "System"), _pairs(_system_pairs(doc["system"])),
             _element("h3", "Configuration"), _configuration(doc["config"])]
    if doc["config"]["warnings"]:
        parts += [_element("h3", "Warnings"),
                  _element("ul", *(_element("li", _HTML.warn(warning)) for warning in doc["config"]["warnings"]))]
    if doc.get("loads"):
        parts += [_element("h3", "Loads"), _loads(doc["loads"])]
    benches = [[bench["id"], summary.describe_status(bench["status"], _HTML), fmt.seconds(bench["elapsed_s"]),
                summary.bench_note(bench)] for bench in doc["benches"]]
    parts += [_element("h3", "Benches"),
              _table(["bench", "status", "took", "parameters or error"], benches, "llrl")]
    return parts + _metric_tables(doc["metrics"], adjusted)


def _run_pairs(doc: dict[str, Any]) -> list[tuple[str, str]]:
    run = doc["run"]
    pairs = [("id", run["id"]), ("label", run["label"] or MISSING),
             ("started", fmt.local_time(run["started"], with_seconds=True)),
             ("status", summary.describe_status(run["status"], _HTML)),
             ("probe", f"{run['probe_version']}, {run['port']} port"), ("command", " ".join(run["argv"]))]
    if campaign := doc.get("campaign"):
        axes = " ".join(f"{axis}={value}" for axis, value in campaign["axes"].items())
        pairs += [("campaign", f"{campaign['name']} ({campaign['id']})"),
                  ("cell", f"{campaign['cell']} (axes: {axes or 'none'}), repetition {campaign['repetition']} "
                           f"of {campaign['repetitions']}")]
    return pairs


def _system_pairs(system: dict[str, Any]) -> list[tuple[str, str]]:
    return [("host", f"{system['hostname']} ({system['os']}, {system['arch']})"),
            ("kernel", f"{summary.kernel_text(system)} {system['kernel_version']}"), ("CPU", _cpu(system)),
            ("clocksource", system["clocksource"] or MISSING), ("governor", system["governor"] or MISSING),
            ("isolated CPUs", summary.isolated_cpus_text(system["isolated_cpus"])),
            ("RT throttling", summary.rt_throttling_text(system["rt_runtime_us"], system["rt_period_us"])),
            ("virtualization", system["virtualization"] or MISSING),
            ("kernel command line", system["cmdline"] or MISSING)]


def _configuration(config: dict[str, Any]) -> Html:
    rows = []
    for name, key in summary.CONFIG_FIELDS:
        requested, granted = config["requested"][key], config["granted"][key]
        row = [name, summary.config_value(requested), summary.config_value(granted), ""]
        if requested != granted:
            row = [_HTML.warn(cell) for cell in row[:3]] + [_HTML.warn("! not as requested")]
        rows.append(row)
    return _table(["", "requested", "granted", ""], rows, "llll")


def _loads(loads: list[dict[str, Any]]) -> Html:
    rows = [[load["name"], " ".join(f"{key}={value}" for key, value in load["settings"].items()) or MISSING,
             MISSING if load["cpus_used"] is None else f"{load['cpus_used']:.2f} CPUs",
             MISSING if load["loopback_bytes_per_s"] is None
             else f"{load['loopback_bytes_per_s'] * 8 / 1e9:.2f} Gbit/s",
             "held" if load["held"] else _HTML.bad("ended early: " + "; ".join(load["ended_early"]))]
            for load in loads]
    return _table(["load", "settings", "used", "loopback", "during the run"], rows, "llrrl")


def _metric_tables(metrics: list[dict[str, Any]], adjusted: bool) -> list[str]:
    """The tables of `show`, cell for cell: time metrics, their worst latency over time, count metrics."""
    times = [m for m in metrics if not result.is_periodic(m)]
    counts = [m for m in metrics if result.is_periodic(m)]
    parts: list[str] = []
    if times:
        header = ["metric", "count", *(result.STATISTICS[key] for key in summary.STAT_COLUMNS), "validity"]
        parts += [_element("h3", f"Metrics, {'overhead-adjusted' if adjusted else 'as measured'}"),
                  _table(header, [summary.metric_row(m, _HTML, adjusted) for m in times],
                         "lr" + "r" * len(summary.STAT_COLUMNS) + "l")]
    over_time = [summary.over_time_row(m) for m in times if m.get("series") or m.get("threshold")]
    if over_time:
        parts += [_element("h3", "Over time, as measured: worst sample per window"),
                  _table(["metric", "windows", "median window", "worst window", "at", "over threshold"],
                         over_time, "lrrrrl")]
    if counts:
        rows = [[m["id"], fmt.count(m["stats"]["count"]), fmt.seconds(m["period_s"]),
                 *(fmt.figure(m["stats"][key], "count") for key in ("p50", "min", "max")),
                 summary.baseline_text(m), summary.validity_text(m, _HTML)] for m in counts]
        parts += [_element("h3", "Throughput, iterations per reporting period"),
                  _table(["metric", "periods", "period", "median", "min", "max", "vs baseline", "validity"],
                         rows, "lrrrrrrl")]
    return parts
