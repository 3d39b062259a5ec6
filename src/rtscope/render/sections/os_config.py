"""The configuration manifest of an OS built with the probe (an RTOS: ``system.os_config``, read from the
kernel's own configuration when the image was built): in full for one run, and where the builds of
several runs differ. Linux runs have none, and a comparison among them says nothing here."""

from collections.abc import Sequence
from typing import Any

from rtscope.analysis.grouping import Group
from rtscope.render.document import Section, heading, table
from rtscope.render.fmt import MISSING
from rtscope.render.subjects import OneRun, Report


def build(subject: OneRun) -> Section | None:
    """Every setting of the run's OS build, as recorded; None for a run without a manifest."""
    manifest = subject.doc["system"].get("os_config")
    if not manifest:
        return None
    rows = [(name, value_text(value)) for name, value in manifest.items()]
    return Section(heading("OS configuration", ": as the image was built"), (table(None, rows, "ll"),))


def differences(groups: Sequence[Group]) -> Section | None:
    """A row per setting whose value differs between the groups that hold a manifest, a column per such
    group ("—" where one lacks the setting; a group whose runs differ shows their values joined by "/");
    None when fewer than two groups hold one, or when their manifests agree."""
    built = [
        (g.letter, [doc["system"]["os_config"] for doc in g.docs if doc["system"].get("os_config")]) for g in groups
    ]
    built = [(letter, manifests) for letter, manifests in built if manifests]
    if len(built) < 2:
        return None
    names = list(dict.fromkeys(name for _, manifests in built for manifest in manifests for name in manifest))
    rows = []
    for name in names:
        values = [_group_value(manifests, name) for _, manifests in built]
        if len(set(values)) > 1:
            rows.append([name, *values])
    if not rows:
        return None
    return Section(
        heading("OS configuration", ": where the runs' builds differ"),
        (table(["setting", *(letter for letter, _ in built)], rows, "l" * (len(built) + 1)),),
    )


def build_differences(report: Report) -> Section | None:
    """The report's runs' builds, where they differ (:func:`differences` of its groups)."""
    return differences(report.groups)


def value_text(value: Any) -> str:
    """A manifest value as text: a boolean as "yes" or "no", anything else as it is."""
    if isinstance(value, bool):
        return "yes" if value else "no"
    return str(value)


def _group_value(manifests: list[dict[str, Any]], name: str) -> str:
    """The value of setting ``name`` in a group's manifests: "—" where it is absent, several joined by "/"."""
    return "/".join(sorted({value_text(m[name]) if name in m else MISSING for m in manifests}))
