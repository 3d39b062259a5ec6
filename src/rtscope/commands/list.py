"""rtscope list: the benches the target can run, with their metrics and parameters, and the loads."""

import argparse

from rtscope.commands.context import Context
from rtscope.loads import kinds
from rtscope.model.catalogue import Bench
from rtscope.render import fmt
from rtscope.targets import InGuest, LoadPlace, Nowhere, Target
from rtscope.targets.transport import has_command


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """No arguments beyond the global ones."""


def run(args: argparse.Namespace, context: Context) -> int:
    """Print each bench of the target (id, summary, metrics, a table of its parameters), its suites, then
    the loads (--load) with their parameters and whether they can run there: their tool installed, or
    why the target runs none."""
    target = context.target()
    blocks = [_describe(bench, context.style) for bench in target.catalogue.benches]
    if target.catalogue.suites:
        rows = [[suite.id, suite.summary, " ".join(suite.benches)] for suite in target.catalogue.suites]
        blocks.append(
            [
                context.style.heading("Suites"),
                *("  " + line for line in fmt.table(["suite", "what", "benches"], rows, "lll")),
            ]
        )
    blocks.append(_loads(target, context.style))
    context.print(fmt.blocks(blocks))
    return 0


def _loads(target: Target, style: fmt.Style) -> list[str]:
    place = target.load_place()
    rows = []
    for kind in kinds.KINDS.values():
        params = " ".join(f"{name}={param.default}" for name, param in kind.params.items()) or fmt.MISSING
        rows.append([kind.name, kind.summary, params, _tool(kind, target, place, style)])
    lines = [
        style.heading("Loads") + " (--load NAME[,NAME] or NAME:KEY=VALUE…)",
        *("  " + line for line in fmt.table(["load", "what", "parameters (defaults)", "tool"], rows, "llll")),
    ]
    if isinstance(place, Nowhere):
        lines.append(f"  {style.warn(f'{target.name} cannot run loads: {place.reason}')}")
    return lines


def _tool(kind: kinds.LoadKind, target: Target, place: LoadPlace, style: fmt.Style) -> str:
    """What runs the load there, or why it cannot."""
    if kind.tool is None:
        return fmt.MISSING
    if isinstance(place, InGuest):
        return "busybox, in the guest"
    if isinstance(place, Nowhere):
        return style.warn("not available there")
    if has_command(target.transport, kind.tool):
        return kind.tool
    return style.warn(f"{kind.tool} missing (package {kind.package})")


def _describe(bench: Bench, style: fmt.Style) -> list[str]:
    lines = [f"{style.heading(bench.id)}  {bench.summary}", f"  metrics: {', '.join(bench.metrics) or fmt.MISSING}"]
    if bench.params:
        header = ["param", "type", "default", "range", "description"]
        rows = [[p.name, p.type, p.default or fmt.MISSING, p.range_text(), p.description] for p in bench.params]
        lines += ["  " + line for line in fmt.table(header, rows, "lllll")]
    return lines
