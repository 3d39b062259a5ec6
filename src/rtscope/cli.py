"""The command line: global options, one subcommand per module in rtscope.commands.

Every error the user can fix ends as one line "rtscope: <message>" on stderr and exit status 2;
Ctrl-C as "rtscope: interrupted" and exit status 130. Never a traceback for bad input.
"""

import argparse
import importlib
import os
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import NoReturn

from rtscope import __version__, paths
from rtscope.commands.context import Context
from rtscope.errors import RtscopeError
from rtscope.targets import DEFAULT_WAIT_S, TargetOptions, registry

# Each command is the module of its name in rtscope.commands, imported only when it runs: a command
# should not pay at start-up for what another one needs (numpy, the report's renderers).
COMMANDS = {
    "list": "list the benches and suites the target can run, and the loads to run them under",
    "run": "run benches, store the result and show it",
    "campaign": "run a campaign spec (benches × params × loads × configs × repetitions), storing every cell",
    "runs": "list the stored runs, newest first",
    "show": "show one run: system, configuration, warnings and metrics",
    "compare": "compare runs or groups of runs (campaign cells, labels, loads): values, ratios, real differences",
    "trend": "a metric's statistic across the stored runs, in time order, by kernel, label or week: table, CSV, JSON or HTML",
    "report": "write runs as one HTML page: the verdict, systems, configuration, tables and plots",
    "push": "copy stored runs (with their campaigns) to another store, a lab's PostgreSQL: what is there already stays",
    "pull": "copy runs (with their campaigns) from another store into this one: what is here already stays",
    "export": "write one run as CSV, JSON, a cyclictest histogram, LAVA result lines or JUnit XML",
    "check": "CI gate: exit 1 when RUN is worse than a baseline run or group of runs, beyond a threshold and significantly",
    "score": "score runs with the Metrics Number: 1 / Σ(time × weight) over a profile's metrics (higher is better)",
    "profile": "run a program on the target and write a score profile from its context switches, preemptions and interrupts",
    "doctor": "check the target's real-time readiness, one setting at a time; exit 1 when one would distort measurements",
    "kernels": "the RTOS kernels the probe builds against (the user's checkouts): list them, add NAME DIR, remove NAME",
}
# Global options that take a value: a word after one of them is its value, not the command.
_VALUED_OPTIONS = ("--db", "--probe", "--target", "--coordinator", "--wait")
INTERRUPTED = 130


class _Parser(argparse.ArgumentParser):
    """An argument parser whose errors are one-line RtscopeErrors instead of usage text and exit."""

    def error(self, message: str) -> NoReturn:
        raise RtscopeError(f"{message} (see {self.prog} --help)")


def main(argv: list[str] | None = None) -> int:
    """Run rtscope with ``argv`` (default: the process's arguments) and return its exit status."""
    try:
        arguments = sys.argv[1:] if argv is None else argv
        args = build_parser(_command_in(arguments)).parse_args(arguments)
        context = Context(
            args.db or paths.default_db_path(),
            args.probe or paths.default_probe_path(),
            args.target,
            target_options=_target_options(args.coordinator, args.wait),
        )
        # Every module of rtscope.commands has this run (argparse keeps the module untyped).
        run: Callable[[argparse.Namespace, Context], int] = args.command.run
        with context:
            return run(args, context)
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


def _target_options(coordinator: str | None, wait_s: float | None) -> TargetOptions:
    """--coordinator and --wait, else their defaults from the environment, read here once: LG_COORDINATOR
    (as labgrid's own client has it) and RTSCOPE_WAIT."""
    text = os.environ.get("RTSCOPE_WAIT", "")
    if wait_s is None and text:
        try:
            wait_s = float(text)
        except ValueError:
            raise RtscopeError(f"RTSCOPE_WAIT={text}: expected seconds") from None
    return TargetOptions(
        coordinator or os.environ.get("LG_COORDINATOR", ""), DEFAULT_WAIT_S if wait_s is None else wait_s
    )


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The parser for the whole command line. Every command is listed; ``command`` (the one the line
    names) also gets its arguments and sets ``command`` to its module."""
    parser = _Parser(
        prog="rtscope",
        description="Measure how well an operating system serves real-time work, store the results and compare them.",
    )
    parser.add_argument("--version", action="version", version=f"rtscope {__version__}")
    _add_global_options(parser, after_command=False)
    subparsers = parser.add_subparsers(title="commands", metavar="COMMAND", required=True)
    for name, summary in COMMANDS.items():
        subparser = subparsers.add_parser(name, help=summary, description=summary)
        # Global options may also follow the command; SUPPRESS keeps the ones given before it.
        _add_global_options(subparser, after_command=True)
        if name == command:
            module = importlib.import_module(f"rtscope.commands.{name}")
            module.add_arguments(subparser)
            subparser.set_defaults(command=module)
    return parser


def _command_in(arguments: Sequence[str]) -> str | None:
    """The command a command line names: its first word that is not an option or an option's value."""
    words = iter(arguments)
    for word in words:
        if word in _VALUED_OPTIONS:
            next(words, None)
        elif word in COMMANDS:
            return word
        elif not word.startswith("-"):
            return None
    return None


def _add_global_options(parser: argparse.ArgumentParser, *, after_command: bool) -> None:
    # After the command, an option not given must not replace the value given before the command.
    def default(value: object) -> object:
        return argparse.SUPPRESS if after_command else value

    group = parser.add_argument_group("global options")
    group.add_argument(
        "--db",
        metavar="PATH|URL",
        default=default(None),
        help="results store: a SQLite file or a postgresql://[user@]host[:port]/dbname URL (default: $RTSCOPE_DB, "
        "else $XDG_DATA_HOME/rtscope/results.sqlite)",
    )
    group.add_argument(
        "--probe",
        type=Path,
        metavar="PATH",
        default=default(None),
        help="probe binary (default: $RTSCOPE_PROBE, else probe/build/rtscope-probe)",
    )
    group.add_argument(
        "--target",
        default=default("local"),
        metavar="TARGET",
        # Generated from the registry of kinds, so that it names every kind there is.
        help=registry.help_text(),
    )
    group.add_argument(
        "--coordinator",
        metavar="HOST:PORT",
        default=default(None),
        help="the labgrid coordinator of labgrid-place: and labgrid-tag: targets (default: $LG_COORDINATOR)",
    )
    group.add_argument(
        "--wait",
        type=float,
        metavar="S",
        default=default(None),
        help="seconds a labgrid target waits while its places are busy (default: $RTSCOPE_WAIT, else 600 s)",
    )
