"""The kernel's build and command line: what tells two kernels of one release apart (isolcpus, nohz_full,
mitigations …)."""

from rtscope.render import cells
from rtscope.render.document import Section, heading, table
from rtscope.render.subjects import OneRun


def build(subject: OneRun) -> Section:
    """The kernel's version string and command line."""
    system = subject.doc["system"]
    return Section(
        heading("Kernel"),
        (
            table(
                None,
                [
                    ("version", cells.or_missing(system["kernel_version"])),
                    ("command line", cells.or_missing(system["cmdline"])),
                ],
                "ll",
            ),
        ),
    )
