"""What rtscope writes for other tools to read, behind one interface (rtscope.exporters.base.Exporter:
a name, a file suffix, and a write function giving the whole text).

Runs (:data:`RUN_EXPORTERS`, rtscope export): CSV, the JSON document, cyclictest's histogram, LAVA
result lines, JUnit XML and KCIDB — the last three judged by rtscope.analysis.judge. Comparisons
(rtscope.exporters.comparison, rtscope compare): markdown, CSV and JSON.
"""

from rtscope.exporters import cyclictest, junit, kcidb, lava, run_csv
from rtscope.exporters.base import Exporter, RunExport


def _document(export: RunExport) -> str:
    return export.run.text


RUN_EXPORTERS: dict[str, Exporter[RunExport]] = {
    exporter.name: exporter
    for exporter in (
        Exporter(
            "csv", ".csv", "one row per metric, every statistic as a plain number in the metric's unit", run_csv.write
        ),
        Exporter("json", ".json", "the result document exactly as stored", _document),
        Exporter(
            "cyclictest",
            ".cyclictest",
            "the histogram cyclictest -h prints, one 1 µs row per line and one "
            "column per metric, for the scripts that plot it",
            cyclictest.write,
        ),
        Exporter(
            "lava",
            ".lava",
            "'NAME pass|fail VALUE UNITS' lines (times in us) as lava-test-case records them",
            lava.write,
        ),
        Exporter("junit", ".junit.xml", "JUnit XML, a testcase per metric", junit.write),
        Exporter(
            "kcidb",
            ".kcidb.json",
            "KernelCI's KCIDB v5.3 JSON (kcidb-submit): the kernel as checkout and build, a test per "
            "metric's p50, p99 and max (a throughput's p1 and min; a per-period metric's median)",
            kcidb.write,
        ),
    )
}
