"""The run: its id, label and status, when it started and how long it took, the probe and its command."""

from datetime import datetime

from rtscope.render import cells, fmt
from rtscope.render.document import Cell, Section, table
from rtscope.render.subjects import OneRun


def build(subject: OneRun) -> Section:
    """"Run ID "LABEL": STATUS" over the run's fields."""
    run = subject.doc["run"]
    label = f' "{run["label"]}"' if run["label"] else ""
    elapsed = datetime.fromisoformat(run["finished"]) - datetime.fromisoformat(run["started"])
    return Section((Cell(f"Run {run['id']}{label}: ", "strong"), cells.status(run["status"])), (table(None, [
        ("started", f"{fmt.local_time(run['started'], with_seconds=True)} (took "
                    f"{fmt.seconds(elapsed.total_seconds())})"),
        ("probe", f"{run['probe_version']}, {run['port']} port"),
        ("command", " ".join(run["argv"])),
    ], "ll"),))
