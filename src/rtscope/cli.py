"""The command line: global options, one subcommand per module in rtscope.commands.

Every error the user can fix ends as one line "rtscope: <message>" on stderr and exit status 2;
Ctrl-C as "rtscope: interrupted" and exit status 130. Never a traceback for bad input.
"""

import argparse
import importlib
import os
import re
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import NoReturn

from rtscope import __version__, paths
from rtscope.commands.context import Context
from rtscope.errors import RtscopeError, did_you_mean
from rtscope.targets import DEFAULT_WAIT_S, TargetOptions, registry

# Each command is the module of its name in rtscope.commands, imported only when it runs: a command
# should not pay at start-up for what another one needs (numpy, the report's renderers).
COMMANDS = {
    "list": "list the benches and suites the target can run, and the loads to run them under",
    "run": "run benches, store the result and show it",
    "campaign": "run a campaign spec (benches × params × loads × configs × repetitions), storing every cell",
    "monitor": "watch boards for as long as it runs: each window of the spec's schedule stored as it ends, resumed after a restart",
    "runs": "list the stored runs, newest first",
    "show": "show one run: system, configuration, warnings and metrics",
    "compare": "compare runs or groups of runs (campaign cells, labels, loads): values, ratios, real differences",
    "trend": "a metric's statistic across the stored runs, in time order, by kernel, label or week: table, CSV, JSON or HTML",
    "changes": "where a metric's level or tail stepped across the stored runs, by how much, and what changed with it",
    "report": "write runs as one HTML page: the verdict, systems, configuration, tables and plots",
    "push": "copy stored runs (with their campaigns) to another store, a lab's PostgreSQL: what is there already stays",
    "pull": "copy runs (with their campaigns) from another store into this one: what is here already stays",
    "compact": "merge a monitor's older windows by hour, then by day, exactly (as the monitor does every hour)",
    "export": "write one run in a format another tool reads (rtscope export --help names each)",
    "check": "CI gate: exit 1 when RUN is worse than a baseline run or group of runs, beyond a threshold and significantly",
    "score": "score runs with the Metrics Number: 1 / Σ(time × weight) over a profile's metrics (higher is better)",
    "profile": "run a program on the target and write a score profile from its context switches, preemptions and interrupts",
    "doctor": "check the target's real-time readiness, one setting at a time; exit 1 when one would distort measurements",
    "kernels": "the RTOS kernels the probe builds against (the user's checkouts): list them, add NAME DIR, remove NAME",
}
# What --help ends with: commands to copy, each with what it does. Every one parses (tests/test_cli_help.py).
EXAMPLES: dict[str | None, tuple[tuple[str, str], ...]] = {
    None: (
        ("rtscope run", "measure ctxsw.sem and lat.wakeup, 5 s each, and store the run"),
        ("rtscope show last", "that run again: system, real-time setup, warnings, metrics"),
        ("rtscope run --help", "a command's options, and examples of it"),
    ),
    "list": (
        ("rtscope list", "this machine's benches with their parameters, suites and loads"),
        ("rtscope --target qemu:mps2-an385:freertos list", "what FreeRTOS on an emulated Cortex-M3 runs"),
    ),
    "run": (
        ('rtscope run latency --cpus 1 --label "rt kernel"', "the latency suite on CPU 1, labelled"),
        (
            "rtscope run lat.wakeup --load cpu --param threshold_us=200 --param trace=each",
            "under CPU load; what held the CPU at each wake-up later than 200 µs",
        ),
        (
            "rtscope run micro --duration 2 --json micro.json",
            "every per-operation bench, 2 s each; the result also in micro.json",
        ),
    ),
    "campaign": (
        ("rtscope campaign examples/campaigns/quick.toml --dry-run", "what it would run, and for how long"),
        ("rtscope campaign examples/campaigns/quick.toml", "run it, storing every cell"),
        ("rtscope campaign examples/campaigns/quick.toml --resume", "after an interruption: only what is left"),
    ),
    "monitor": (
        ("rtscope monitor examples/monitors/lab.toml", "watch its boards, idle and loaded in turn, until SIGTERM"),
        ("rtscope --db postgresql://db.lab.example/rtscope monitor lab.toml", "into the lab's store"),
    ),
    "runs": (
        ("rtscope runs --limit 5", "the five newest runs"),
        ('rtscope runs --label "rt kernel" --since 2026-11-01 --format json', "filtered, for scripts"),
    ),
    "show": (
        ("rtscope show last", "the newest stored run"),
        ("rtscope show micro.json --raw-times", "a result file, times as measured"),
    ),
    "compare": (
        ("rtscope compare campaign:quick", "a campaign's cells, each a group of repetitions"),
        ("rtscope compare --by label campaign:quick", "the same runs grouped by label"),
        ("rtscope compare micro.json last --ops", "a result file beside the newest run: cost per operation"),
    ),
    "trend": (
        ("rtscope trend lat.wakeup", "its p99 in every stored run, per kernel release"),
        ("rtscope trend lat.wakeup --stat max --by week --since 2026-09-01 -o trend.html", "weekly maxima, a page"),
    ),
    "changes": (
        ("rtscope changes lat.wakeup", "where its p50, p99 or max stepped, by how much, and what changed"),
        ("rtscope changes lat.wakeup --stat max --host board --json", "the maximum's steps on one board, as JSON"),
    ),
    "report": (
        ("rtscope report last -o run.html", "the newest run as one page"),
        ("rtscope report campaign:quick -o quick.html", "a campaign: verdict, tables, plots"),
        ("rtscope report --monitor lab -o lab.html", "a monitor's boards over months: histograms, worst per window"),
    ),
    "push": (
        ("rtscope push campaign:quick --to postgresql://db.lab.example/rtscope", "a campaign to the lab's store"),
        ("rtscope push --all --to backup.sqlite", "every stored run to another file"),
    ),
    "pull": (
        ("rtscope pull --all --from postgresql://db.lab.example/rtscope", "the lab's runs into this store"),
        ("rtscope pull campaign:quick --from backup.sqlite", "one campaign's runs"),
    ),
    "compact": (
        ("rtscope compact --monitor lab", "windows over 30 days old merged by hour, over a year by day"),
        ("rtscope compact --monitor lab --keep-full 7d --keep-hourly 30d", "keep windows a week, hourly ones a month"),
    ),
    "export": (
        ("rtscope export last --format csv -o last.csv", "one row per metric"),
        ("rtscope export last --format cyclictest --hist-us 200", "cyclictest's histogram, for its plot scripts"),
        ("rtscope export last --format junit --limit lat.wakeup:max=100us -o latency.xml", "a CI's test results"),
    ),
    "check": (
        ("rtscope check last --baseline last:5", "against the five runs before it on this host"),
        ("rtscope check last --baseline label:stock --max-regression 5% --stat p99,max", "against a label's runs"),
    ),
    "score": (
        ("rtscope score last", "the Metrics Number with the published weights"),
        ("rtscope score last micro.json --profile app.toml", "two runs ranked by your program's weights"),
    ),
    "profile": (
        ("rtscope profile -o app.toml -- ./your-program --its-options", "weights from what it makes the OS do"),
        ("rtscope profile -o build.toml --name build -- make -C probe", "a named profile of a build"),
    ),
    "doctor": (
        ("rtscope doctor", "this machine"),
        ("rtscope --target ssh://pi@board doctor --format json", "a board, for scripts"),
    ),
    "kernels": (
        ("rtscope kernels", "each kernel: where its checkout is, its version, tested or not"),
        ("rtscope kernels add freertos ~/src/FreeRTOS-Kernel", "name your checkout once (docs/rtos.md)"),
        ("rtscope kernels remove threadx", "forget a checkout (it stays on disk)"),
    ),
}
# Global options that take a value: a word after one of them is its value, not the command.
_VALUED_OPTIONS = ("--db", "--probe", "--target", "--coordinator", "--wait")
INTERRUPTED = 130


class _Parser(argparse.ArgumentParser):
    """An argument parser whose errors are one-line RtscopeErrors instead of usage text and exit, with the
    closest names to a mistyped command, option or choice; its help ends with ``examples``."""

    examples: tuple[tuple[str, str], ...] = ()
    # The command line being parsed: a word taken for the command may be an unknown option's value.
    words: Sequence[str] = ()
    # Whose --help an error points to: the command's, when the line names one (its options are there).
    help_prog = ""

    def error(self, message: str) -> NoReturn:
        raise RtscopeError(f"{self._hinted(message)} (see {self.help_prog or self.prog} --help)")

    def format_help(self) -> str:
        # Not an epilog: argparse would re-wrap it, and raw text for all would stop wrapping the rest.
        lines = [f"  # {what}\n  {command}\n" for command, what in self.examples]
        return super().format_help() + ("\nexamples:\n" + "".join(lines) if lines else "")

    def _hinted(self, message: str) -> str:
        unknown = re.fullmatch(r"unrecognized arguments: (.*)", message)
        if unknown:
            return self._unknown_options(unknown.group(1).split()) or message
        choice = re.fullmatch(r"argument (\S+): invalid choice: '(.*)' \(choose from (.*)\)", message)
        if not choice:
            return message
        argument, given, listed = choice.groups()
        choices = re.findall(r"'([^']*)'", listed)
        if argument == "COMMAND":
            before = self.words[: self.words.index(given)] if given in self.words else []
            return self._unknown_options(before) or f"unknown command {given!r}" + (
                did_you_mean(given, choices) or f" (commands: {', '.join(choices)})"
            )
        return message + did_you_mean(given, choices)

    def _unknown_options(self, words: Sequence[str]) -> str:
        """ "unknown option --duraton; did you mean --duration?" for the first word that looks like a long
        option this command line does not take; empty when there is none."""
        options = self._long_options()
        for word in words:
            option = word.split("=", 1)[0]
            # argparse takes an unambiguous prefix too (--dur for --duration).
            if option.startswith("--") and not any(known.startswith(option) for known in options):
                return f"unknown option {option}{did_you_mean(option, options)}"
        return ""

    def _long_options(self) -> list[str]:
        # argparse has no public list of a parser's options: its actions are read, never changed.
        options = []
        for action in self._actions:
            options += [option for option in action.option_strings if option.startswith("--")]
            # A command's parser is a choice of the subparsers' action.
            for command in action.choices.values() if isinstance(action.choices, dict) else ():
                options += command._long_options() if isinstance(command, _Parser) else []
        return list(dict.fromkeys(options))


def main(argv: list[str] | None = None) -> int:
    """Run rtscope with ``argv`` (default: the process's arguments) and return its exit status."""
    try:
        arguments = sys.argv[1:] if argv is None else argv
        parser = build_parser(_command_in(arguments))
        parser.words = arguments
        args = parser.parse_args(arguments)
        context = Context(
            args.db or paths.default_store_location(),
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


def build_parser(command: str | None = None) -> _Parser:
    """The parser for the whole command line. Every command is listed; ``command`` (the one the line
    names) also gets its arguments and sets ``command`` to its module."""
    parser = _Parser(
        prog="rtscope",
        description="Measure how well an operating system serves real-time work, store the results and compare them.",
    )
    parser.examples = EXAMPLES[None]
    parser.add_argument("--version", action="version", version=f"rtscope {__version__}")
    _add_global_options(parser, after_command=False)
    subparsers = parser.add_subparsers(title="commands", metavar="COMMAND", required=True)
    for name, summary in COMMANDS.items():
        subparser = subparsers.add_parser(name, help=summary, description=summary)
        subparser.examples = EXAMPLES[name]
        # Global options may also follow the command; SUPPRESS keeps the ones given before it.
        _add_global_options(subparser, after_command=True)
        if name == command:
            module = importlib.import_module(f"rtscope.commands.{name}")
            module.add_arguments(subparser)
            subparser.set_defaults(command=module)
            parser.help_prog = subparser.prog
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
        help="probe binary (default: $RTSCOPE_PROBE, else rtscope's own, which it builds when missing or stale: "
        "in probe/build/ of a clone, else under $XDG_CACHE_HOME/rtscope/)",
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
