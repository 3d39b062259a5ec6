"""The run: its id, label and status, when it started and how long it took, where and on what time base
it was measured, the probe (and its image's sizes) and its command."""

import shlex
from datetime import datetime
from typing import Any

from rtscope.model import result
from rtscope.render import cells, fmt
from rtscope.render.document import Cell, Section, table
from rtscope.render.subjects import OneRun

# What each time base makes of a figure, said wherever a run is shown: an emulator's instruction time
# is no hardware latency.
TIME_BASES = {
    "hardware": "hardware time",
    "instructions": "instruction time on emulated hardware, not a hardware latency",
    "emulated": "emulated hardware on the host's clock: noisy, not a hardware latency",
    "simulator": "an OS simulator's time, not the OS's",
    "replayed": "replayed from a recording, not measured now",
}


def build(subject: OneRun) -> Section:
    """ "Run ID "LABEL": STATUS" over the run's fields."""
    run = subject.doc["run"]
    label = f' "{run["label"]}"' if run["label"] else ""
    elapsed = datetime.fromisoformat(run["finished"]) - datetime.fromisoformat(run["started"])
    return Section(
        (Cell(f"Run {run['id']}{label}: ", "strong"), cells.status(run["status"])),
        (
            table(
                None,
                [
                    (
                        "started",
                        (
                            f"{fmt.local_time(run['started'], with_seconds=True)} (took "
                            f"{fmt.seconds(elapsed.total_seconds())})"
                        ),
                    ),
                    *_measured_on_row(subject.doc),
                    ("probe", f"{run['probe_version']}, {run['port']} port"),
                    *_image_row(run),
                    ("command", shlex.join(run["argv"])),  # pasted back as it reads
                    *_varied_row(subject.doc),
                ],
                "ll",
            ),
        ),
    )


def _varied_row(doc: dict[str, Any]) -> list[tuple[str, str]]:
    """What the run's seed varied (rtscope-probe run --seed), the seed to give again to repeat the run on an
    emulator; nothing for a run without one."""
    varied = result.varied(doc)
    return [("varied", varied)] if varied else []


def _measured_on_row(doc: dict[str, Any]) -> list[tuple[str, str]]:
    """Where and on what time base, when the analyzer recorded the target or the probe alone says it ran in
    an OS simulator; else nothing (an older result, measured on hardware)."""
    time_base = result.time_base(doc)
    target = doc.get("target")
    if not target and time_base == "hardware":
        return []
    return [("measured on", measured_on({**(target or {}), "time_base": time_base}))]


def _image_row(run: dict[str, Any]) -> list[tuple[str, str]]:
    """The probe's image sizes ("text 186,076 B  data 3,752 B  bss 40,960 B"), where the probe recorded
    them (results since 2026-11-26); a size the link did not tell is "?"."""
    image = run.get("image")
    if not image:
        return []
    return [("image", "  ".join(f"{key} {_bytes(image[key])}" for key in ("text", "data", "bss")))]


def _bytes(value: int | None) -> str:
    return "?" if value is None else f"{fmt.count(value)} B"


def measured_on(target: dict[str, Any]) -> str:
    """ "local: hardware time", "qemu:aarch64:rt: instruction time on emulated hardware, …" with the length
    of an instruction where the target recorded it ("(one instruction every 32 ns)"); without a name (a
    simulator's result the probe wrote alone) the time base only: "an OS simulator's time, not the OS's"."""
    time_base = TIME_BASES[target["time_base"]]
    if "name" not in target:
        return time_base
    rate = result.ns_per_instruction({"target": target})
    return f"{target['name']}: {time_base}" + (f" (one instruction every {rate} ns)" if rate else "")
