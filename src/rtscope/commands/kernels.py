"""rtscope kernels: the RTOS kernels the probe's ports build against, which are the user's checkouts:
list them (how each is named, its path, version, commit or hash, whether the port was tested with it),
name one (``add NAME DIR``: a link in the user's config folder that make reads too) or forget one
(``remove NAME``). The logic is rtscope.targets.kernels; docs/rtos.md says where each kernel comes from.
"""

import argparse
import os

from rtscope.commands.context import Context
from rtscope.render import fmt
from rtscope.targets import kernels


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """[add NAME DIR | remove NAME]; nothing: the list."""
    actions = parser.add_subparsers(dest="action", metavar="add|remove")
    add = actions.add_parser("add", help="name DIR as the checkout of kernel NAME (replacing the one named before)")
    add.add_argument("name", metavar="NAME", help=f"the kernel: {' or '.join(kernels.KERNELS)}")
    add.add_argument("directory", metavar="DIR", help="its checkout (docs/rtos.md says where to get one)")
    remove = actions.add_parser("remove", help="forget the checkout named for kernel NAME (the checkout stays)")
    remove.add_argument("name", metavar="NAME", help=f"the kernel: {' or '.join(kernels.KERNELS)}")


def run(args: argparse.Namespace, context: Context) -> int:
    """List the kernels, or add or remove one; 0 (a bad NAME or DIR is an RtscopeError)."""
    if args.action == "add":
        named = kernels.add(args.name, args.directory)
        # What the link now names, whatever the variable names (a note says when it wins).
        linked = {name: value for name, value in os.environ.items() if name != named.kernel.env}
        shown = kernels.status(args.name, linked)
        context.print([f"{args.name}: {_line(shown)}, named by the link {named.given}", *_notes(shown, context.style)])
        if os.environ.get(named.kernel.env):
            context.print(
                [f"{args.name}: {named.kernel.env}={os.environ[named.kernel.env]} wins over the link while set"]
            )
    elif args.action == "remove":
        link = kernels.remove(args.name)
        context.print([f"{args.name}: removed the link {link} (the checkout it named stays)"])
        left = kernels.named(args.name)
        if left is not None:
            context.print([f"{args.name}: still named by {left.kernel.env}={left.given}"])
    else:
        context.print(_listing([kernels.status(key) for key in kernels.KERNELS], context.style))
    return 0


def _listing(statuses: list[kernels.Status], style: fmt.Style) -> list[str]:
    """A row per kernel, then a line for each that is not named, cannot be built or is untested."""
    rows = []
    for status in statuses:
        named = status.named
        rows.append(
            [
                status.kernel.key,
                _origin(named) if named else fmt.MISSING,
                str(named.path) if named else fmt.MISSING,
                status.version or fmt.MISSING,
                status.identity.text() if status.identity else fmt.MISSING,
                _tested(status, style),
            ]
        )
    header = ["kernel", "named by", "path", "version", "sources", "tested"]
    notes = [note for status in statuses for note in _notes(status, style)]
    return [*fmt.table(header, rows, "llllll"), *notes]


def _line(status: kernels.Status) -> str:
    assert status.named is not None and status.identity is not None
    return f"{status.kernel.product} {status.version} at {status.named.path} ({status.identity.text()})"


def _origin(named: kernels.Named) -> str:
    if named.origin == kernels.ENVIRONMENT:
        return f"{named.kernel.env} (environment)"
    return f"{named.given} (config)"


def _tested(status: kernels.Status, style: fmt.Style) -> str:
    if status.version is None or status.problem:
        return fmt.MISSING
    return "yes" if status.tested else style.warn("no")


def _notes(status: kernels.Status, style: fmt.Style) -> list[str]:
    """What the user should know of a kernel beyond its row: why it cannot be built, or that its version
    is untested, or that the variable hides the link."""
    key = status.kernel.key
    if status.named is None:
        return [style.warn(f"{key}: {status.problem}"), f"{key}: to get one: {status.kernel.how_to_get()}"]
    if status.problem:
        return [style.warn(f"{key}: {status.problem}")]
    notes = []
    if not status.tested:
        notes.append(
            style.warn(
                f"{key}: the port was tested with {', '.join(status.kernel.tested)}: {status.version} builds, "
                "and its results carry a warning that it is untested"
            )
        )
    link = kernels.config_dir() / key
    if status.named and status.named.origin == kernels.ENVIRONMENT and link.is_symlink():
        notes.append(f"{key}: {status.kernel.env} wins over the link {link} (-> {os.readlink(link)})")
    return notes
