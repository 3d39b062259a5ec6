"""Cells that several sections make from a result document: statuses, validity, the real-time setup not
granted, the system's name (an emulated one by its machine), kernel and CPU, and a metric's name with its labels."""

from collections.abc import Iterable, Mapping
from typing import Any

from rtscope.model import result
from rtscope.render.document import Cell
from rtscope.render.fmt import MISSING

GOOD_STATUSES = ("complete", "ok")
# A bench not started (the target cannot run it): worth a look, not wrong.
SKIPPED = "skipped"


def status(text: str) -> Cell:
    """A run or bench status, marked bad when it is not a good one (a skipped bench: marked to look at)."""
    return Cell(text, "" if text in GOOD_STATUSES else "warn" if text == SKIPPED else "bad")


def validity(metric_doc: dict[str, Any]) -> Cell:
    """ "valid", "throttled: N samples …" (its tail is RT throttling's stop) or "invalid: REASON", marked bad."""
    if metric_doc["valid"]:
        return Cell("valid")
    throttled = result.throttled_text(metric_doc)
    if throttled:
        return Cell(throttled, "bad")
    return Cell(f"invalid: {result.invalid_reason(metric_doc)}", "bad")


def not_granted(config: dict[str, Any]) -> list[str]:
    """The real-time settings a run asked for and did not get: those whose granted value differs, but for
    the ones its platform does not have (``not_applicable``, absent from results before 2026-11-26)."""
    requested, granted = config["requested"], config["granted"]
    not_applicable = config.get("not_applicable", ())
    return [key for key in requested if key not in not_applicable and granted[key] != requested[key]]


def kernel_text(system: dict[str, Any]) -> str:
    """The kernel release with its preemption model and whether it is a realtime kernel."""
    realtime = {True: ", realtime", False: ", not realtime", None: ""}[system["realtime_kernel"]]
    return f"{system['kernel_release']} (preempt {system['preempt_model']}{realtime})"


def emulated(doc: dict[str, Any]) -> tuple[str | None, str | None]:
    """The machine type and CPU model an emulator ran the run on, as its target recorded them (QEMU's
    ``mps2-an385``, ``Cortex-M3``); None where the run was not emulated or recorded neither."""
    detail = (doc.get("target") or {}).get("detail") or {}
    return detail.get("emulated_machine"), detail.get("emulated_cpu")


def host_text(doc: dict[str, Any], *more: str) -> str:
    """The system a run measured, by name: its hostname, or "qemu virt (emulated)" for an emulated
    machine (a QEMU guest's hostname is "(none)"); ``more`` in the parentheses ("fixture-host (Linux,
    x86_64)", "qemu virt (emulated; Linux, aarch64)")."""
    machine = emulated(doc)[0]
    name = f"qemu {machine}" if machine else doc["system"]["hostname"]
    said = "; ".join(filter(None, ("emulated" if machine else "", ", ".join(more))))
    return f"{name} ({said})" if said else name


def cpu_model(doc: dict[str, Any]) -> str | None:
    """The CPU's model: as the system told it, else the emulated CPU's; None when neither is known."""
    model: str | None = doc["system"]["cpu_model"] or emulated(doc)[1]
    return model


def cpu_text(doc: dict[str, Any]) -> str:
    """ "AMD EPYC × 2 (online 0-1)": the CPU model, how many, and which are online when known; the
    emulated CPU's model where the system told none ("cortex-a57 × 2 (emulated; online 0-1)")."""
    system = doc["system"]
    online = f"online {system['cpus_online']}" if system["cpus_online"] else ""
    said = "; ".join(filter(None, ("emulated" if emulated(doc)[1] else "", online)))
    return f"{cpu_model(doc) or 'unknown model'} × {system['cpu_count']}{f' ({said})' if said else ''}"


def or_missing(value: str | None) -> str:
    """A text the system may not have told, "—" when it did not."""
    return MISSING if value is None or value == "" else value


def labels_shown(metric_docs: Iterable[dict[str, Any]]) -> bool:
    """Whether a table of these metrics needs a labels column: some metric has labels that its id does
    not spell out (an id may carry them in braces, and validation holds them to be the same)."""
    return any(result.labels(m) and "{" not in m["id"] for m in metric_docs)


def labels_text(labels: Mapping[str, str | int]) -> str:
    """Labels as "cpu=1 model=python", "—" when there are none."""
    return " ".join(f"{key}={value}" for key, value in labels.items()) or MISSING


def metric_cells(metric_doc: dict[str, Any], with_labels: bool) -> list[str]:
    """The cells that name a metric in a table: its id, and its labels when the table has the column."""
    return [metric_doc["id"], *([labels_text(result.labels(metric_doc))] if with_labels else [])]


def metric_header(with_labels: bool) -> list[str]:
    """The header cells over :func:`metric_cells`."""
    return ["metric", *(["labels"] if with_labels else [])]
