"""The disturbance loads the run was measured under, and whether they held."""

from rtscope.render.document import Cell, Section, heading, table
from rtscope.render.fmt import MISSING
from rtscope.render.subjects import OneRun


def build(subject: OneRun) -> Section | None:
    """A row per load: its settings, the CPUs' worth it used, its loopback traffic, whether it held."""
    loads = subject.doc.get("loads")
    if not loads:
        return None
    rows = [
        [
            load["name"],
            " ".join(f"{key}={value}" for key, value in load["settings"].items()) or MISSING,
            MISSING if load["cpus_used"] is None else f"{load['cpus_used']:.2f} CPUs",
            MISSING if load["loopback_bytes_per_s"] is None else f"{load['loopback_bytes_per_s'] * 8 / 1e9:.2f} Gbit/s",
            Cell("held") if load["held"] else Cell("ended early: " + "; ".join(load["ended_early"]), "bad"),
        ]
        for load in loads
    ]
    return Section(
        heading("Loads"), (table(["load", "settings", "used", "loopback", "during the run"], rows, "llrrl"),)
    )
