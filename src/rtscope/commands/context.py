"""What every command works with: the global options, the output stream, the target and the store."""

import argparse
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Self, TextIO

from rtscope import files
from rtscope.model import result
from rtscope.render import fmt
from rtscope.store.database import Store
from rtscope.targets import Target, TargetOptions, make_target

LATEST = "last"
CAMPAIGN_PREFIX = "campaign:"


def add_output_option(parser: argparse.ArgumentParser) -> None:
    """The -o FILE of the commands that print a document or write it (Context.write_output)."""
    parser.add_argument(
        "-o",
        "--output",
        type=Path,
        metavar="FILE",
        help="write to FILE, complete or not at all (default: standard output)",
    )


class Context:
    """The global options of one rtscope invocation, and the resources they name, opened on demand.

    Use as a ``with`` block: the store, if opened, is closed at its end.
    """

    def __init__(
        self,
        store_location: str | Path,
        probe: Path,
        target_spec: str,
        out: TextIO | None = None,
        target_options: TargetOptions | None = None,
    ):
        """``out`` is where commands print (default: sys.stdout as it is when the context is made);
        ``target_options`` what the command line says of every target (--coordinator, --wait)."""
        self.store_location = store_location
        self.probe = probe
        self.target_spec = target_spec
        self.target_options = target_options or TargetOptions()
        self.out = out or sys.stdout
        self.style = fmt.Style.for_stream(self.out)
        self._store: Store | None = None

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc_info: object) -> None:
        if self._store is not None:
            self._store.close()

    def target(self, spec: str | None = None) -> Target:
        """The target named by ``spec`` (a campaign spec's), else by ``--target``."""
        return make_target(spec or self.target_spec, self.probe, self.target_options)

    def store(self, *, create: bool = False) -> Store:
        """The results store (a SQLite file or a PostgreSQL URL), opened on first use (created too, with
        ``create``)."""
        if self._store is None:
            self._store = Store.open(self.store_location, create=create)
        return self._store

    def load_run(self, ref: str) -> result.Result:
        """The run a RUN argument names: "last", a stored run's id or unique id prefix, or a result file.

        A name that exists as a file, or looks like a path (has a "/" or ends in ".json"), is a file;
        such a file is validated but not stored.
        """
        if ref == LATEST:
            return self.store().latest()
        if os.path.exists(ref) or "/" in ref or ref.endswith(".json"):
            return result.load(ref)
        return self.store().get(ref)

    def load_runs(self, refs: list[str]) -> list[result.Result]:
        """The runs that RUN and CAMPAIGN arguments name, in the order given: a RUN argument as
        :meth:`load_run` reads it, ``campaign:NAME`` (the newest campaign of that name) or
        ``campaign:ID`` all of that campaign's stored runs, cell by cell, repetitions in order."""
        runs: list[result.Result] = []
        for ref in refs:
            if ref.startswith(CAMPAIGN_PREFIX):
                runs += self.store().campaign_runs(ref.removeprefix(CAMPAIGN_PREFIX))
            else:
                runs.append(self.load_run(ref))
        return runs

    def stored_ids(self, refs: list[str], *, every: bool = False) -> list[str]:
        """The ids of the stored runs that RUN and ``campaign:NAME`` arguments name (as :meth:`load_runs`
        reads them, but no result file), each once; with ``every``, of every stored run."""
        if every:
            return [row.id for row in self.store().runs()]
        ids: list[str] = []
        for ref in refs:
            if ref.startswith(CAMPAIGN_PREFIX):
                ids += [run.run_id for run in self.store().campaign_runs(ref.removeprefix(CAMPAIGN_PREFIX))]
            else:
                ids.append(self.store().latest().run_id if ref == LATEST else self.store().get(ref).run_id)
        return list(dict.fromkeys(ids))

    def write_output(self, output: Path | None, render: Callable[[], str]) -> None:
        """The text ``render`` gives on the output, or in the file ``output``, complete or not at all: the
        file is claimed first, so that an unwritable one is reported before any work."""
        if output is None:
            self.out.write(render())
            return
        with files.AtomicFile(output) as claimed:
            claimed.commit(render())

    def print(self, lines: list[str]) -> None:
        """Write ``lines`` to the output, one per line."""
        for line in lines:
            print(line, file=self.out)
