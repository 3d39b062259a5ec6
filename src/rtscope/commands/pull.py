"""rtscope pull: copy runs, with their campaigns and who stored them, from another store into this one;
runs already here are left alone, so pulling again copies nothing."""

import argparse

from rtscope.commands import push
from rtscope.commands.context import Context
from rtscope.store.database import copy_runs


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """RUN|campaign:NAME…, --all, --from."""
    push.add_selection(parser, "pull")
    parser.add_argument("--from", dest="source", required=True, metavar="PATH|URL", help="the store to copy them from")


def run(args: argparse.Namespace, context: Context) -> int:
    """Copy the runs named in --from into this store; say how many came and how many were here already."""
    with Context(args.source, context.probe, context.target_spec, context.out) as source:
        ids = push.selected(args, source)
        destination = context.store(create=True)
        copied, present = copy_runs(source.store(), destination, ids, push.progress_line("pulling"))
        context.print([f"pulled {copied} runs from {source.store().location} ({present} already here)"])
    return 0
