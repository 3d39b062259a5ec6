"""The command line: global options, one subcommand per module in rtscope.commands.

Every error the user can fix ends as one line "rtscope: <message>" on stderr and exit status 2;
Ctrl-C as "rtscope: interrupted" and exit status 130. Never a traceback for bad input.
"""

import argparse
import os
import sys
from pathlib import Path
from typing import NoReturn

from rtscope import __version__, paths
from rtscope.commands import campaign, check, compare, export, profile, report, run, runs, score, show
from rtscope.commands import list as list_command
from rtscope.commands.context import Context
from rtscope.errors import RtscopeError

COMMANDS = (list_command, run, campaign, runs, show, compare, report, export, check, score, profile)
INTERRUPTED = 130


class _Parser(argparse.ArgumentParser):
    """An argument parser whose errors are one-line RtscopeErrors instead of usage text and exit."""

    def error(self, message: str) -> NoReturn:
        raise RtscopeError(f"{message} (see {self.prog} --help)")


def main(argv: list[str] | None = None) -> int:
    """Run rtscope with ``argv`` (default: the process's arguments) and return its exit status."""
    try:
        args = build_parser().parse_args(argv)
        context = Context(args.db or paths.default_db_path(), args.probe or paths.default_probe_path(),
                          args.target)
        with context:
            return args.command.run(args, context)
    except RtscopeError as error:
        if not error.already_reported:
            print(f"rtscope: {error}", file=sys.stderr)
        return error.exit_status
    except KeyboardInterrupt:
        print("rtscope: interrupted", file=sys.stderr)
        return INTERRUPTED
    except BrokenPipeError:
        # The reader went away (rtscope runs | head): not an error. Point stdout at /dev/null so that
        # the interpreter's final flush does not complain again.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0


def build_parser() -> argparse.ArgumentParser:
    """The parser for the whole command line; each subcommand sets ``command`` to its module."""
    parser = _Parser(prog="rtscope", description="Measure how well an operating system serves real-time "
                                                 "work, store the results and compare them.")
    parser.add_argument("--version", action="version", version=f"rtscope {__version__}")
    _add_global_options(parser, after_command=False)
    subparsers = parser.add_subparsers(title="commands", metavar="COMMAND", required=True)
    for module in COMMANDS:
        subparser = subparsers.add_parser(module.NAME, help=module.HELP, description=module.HELP)
        # Global options may also follow the command; SUPPRESS keeps the ones given before it.
        _add_global_options(subparser, after_command=True)
        module.add_arguments(subparser)
        subparser.set_defaults(command=module)
    return parser


def _add_global_options(parser: argparse.ArgumentParser, *, after_command: bool) -> None:
    # After the command, an option not given must not replace the value given before the command.
    def default(value: object) -> object:
        return argparse.SUPPRESS if after_command else value

    group = parser.add_argument_group("global options")
    group.add_argument("--db", type=Path, metavar="PATH", default=default(None),
                       help="results database (default: $RTSCOPE_DB, else "
                            "$XDG_DATA_HOME/rtscope/results.sqlite)")
    group.add_argument("--probe", type=Path, metavar="PATH", default=default(None),
                       help="probe binary (default: $RTSCOPE_PROBE, else probe/build/rtscope-probe)")
    group.add_argument("--target", metavar="local|fake:DIR", default=default("local"),
                       help="where benches run: local (default), or fake:DIR to replay the result "
                            "files recorded in DIR")
