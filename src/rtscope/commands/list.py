"""rtscope list: the benches the target can run, with their metrics and parameters, and the loads."""

import argparse

from rtscope.commands.context import Context
from rtscope.loads import guest, kinds
from rtscope.model.catalogue import Bench
from rtscope.render import fmt
from rtscope.targets import Target
from rtscope.targets.transport import has_command


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """No arguments beyond the global ones."""


def run(args: argparse.Namespace, context: Context) -> int:
    """Print each bench of the target (id, summary, metrics, a table of its parameters), its suites, then
    the loads (--load) with their parameters and whether their tool is installed."""
    target = context.target()
    blocks = [_describe(bench, context.style) for bench in target.list_benches()]
    suites = target.list_suites()
    if suites:
        rows = [[suite.id, suite.summary, " ".join(suite.benches)] for suite in suites]
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
    rows = []
    for kind in kinds.KINDS.values():
        params = " ".join(f"{name}={param.default}" for name, param in kind.params.items()) or fmt.MISSING
        if kind.tool and guest.inside(target):
            tool = "busybox, in the guest"
        elif kind.tool is None or has_command(target.transport, kind.tool):
            tool = kind.tool or fmt.MISSING
        else:
            tool = style.warn(f"{kind.tool} missing (package {kind.package})")
        rows.append([kind.name, kind.summary, params, tool])
    return [
        style.heading("Loads") + " (--load NAME[,NAME] or NAME:KEY=VALUE…)",
        *("  " + line for line in fmt.table(["load", "what", "parameters (defaults)", "tool"], rows, "llll")),
    ]


def _describe(bench: Bench, style: fmt.Style) -> list[str]:
    lines = [f"{style.heading(bench.id)}  {bench.summary}", f"  metrics: {', '.join(bench.metrics) or fmt.MISSING}"]
    if bench.params:
        header = ["param", "type", "default", "range", "description"]
        rows = [[p.name, p.type, p.default or fmt.MISSING, p.range_text(), p.description] for p in bench.params]
        lines += ["  " + line for line in fmt.table(header, rows, "lllll")]
    return lines
