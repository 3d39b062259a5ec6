"""rtscope push: copy stored runs, with their campaigns and who stored them, to another store (a lab's
PostgreSQL, or a SQLite file); runs already there are left alone, so pushing again copies nothing."""

import argparse
import sys
import time
from collections.abc import Callable

from rtscope.commands.context import Context
from rtscope.errors import RtscopeError
from rtscope.store.database import Store, copy_runs


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """RUN|campaign:NAME…, --all, --to."""
    add_selection(parser, "push")
    parser.add_argument("--to", required=True, metavar="PATH|URL", help="the store to copy them to (made if missing)")


def run(args: argparse.Namespace, context: Context) -> int:
    """Copy the runs named from this store to --to; say how many went and how many were there already."""
    ids = selected(args, context)
    with Store.open(args.to, create=True) as destination:
        copied, present = copy_runs(context.store(), destination, ids, progress_line("pushing"))
        context.print([f"pushed {copied} runs to {destination.location} ({present} already there)"])
    return 0


def add_selection(parser: argparse.ArgumentParser, verb: str) -> None:
    """The runs to copy: RUN|campaign:NAME arguments, or --all."""
    parser.add_argument("runs", nargs="*", metavar="RUN|campaign:NAME", help=f"the stored runs to {verb}")
    parser.add_argument("--all", action="store_true", help=f"{verb} every stored run")


def selected(args: argparse.Namespace, context: Context) -> list[str]:
    """The ids of the runs the arguments name, in ``context``'s store."""
    if bool(args.runs) == args.all:
        raise RtscopeError("name the runs to copy (RUN or campaign:NAME), or give --all")
    return context.stored_ids(args.runs, every=args.all)


# How often a log (not a terminal) gets the progress line.
_LOG_EVERY_S = 5.0


def progress_line(verb: str) -> Callable[[int, int], None]:
    """copy_runs' progress on stderr, "rtscope: VERB N/M runs": redrawn after every run on a terminal, every
    few seconds and at the end in a log."""
    tty = sys.stderr.isatty()
    last = time.monotonic()

    def show(done: int, total: int) -> None:
        nonlocal last
        now = time.monotonic()
        if tty or done == total or now - last >= _LOG_EVERY_S:
            start, end = ("\r", "\n" if done == total else "") if tty else ("", "\n")
            print(f"{start}rtscope: {verb} {done}/{total} runs", end=end, file=sys.stderr, flush=True)
            last = now

    return show
