"""The campaign cell a run measured: the campaign, the cell and its axes, the repetition."""

from rtscope.render.document import Section, heading, table
from rtscope.render.subjects import OneRun


def build(subject: OneRun) -> Section | None:
    """The campaign's fields, for a run of a campaign."""
    campaign = subject.doc.get("campaign")
    if not campaign:
        return None
    axes = " ".join(f"{axis}={value}" for axis, value in campaign["axes"].items()) or "none"
    return Section(
        heading("Campaign"),
        (
            table(
                None,
                [
                    ("campaign", f"{campaign['name']} ({campaign['id']})"),
                    ("cell", f"{campaign['cell']} (axes: {axes})"),
                    ("repetition", f"{campaign['repetition']} of {campaign['repetitions']}"),
                ],
                "ll",
            ),
        ),
    )
