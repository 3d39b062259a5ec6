"""One small interface over the two databases a store lives in: one SQLite file (one person's), or a PostgreSQL
database a lab shares (rtscope.store.postgres). Statements are written once, with "?" parameters; transactions
are explicit; a driver's error reaches the user as one line naming the store, never its password."""

import abc
import contextlib
import sqlite3
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from rtscope.errors import RtscopeError


@dataclass(frozen=True)
class Dialect:
    """What the schema and the queries spell differently in one database."""

    blob: str  # the type of bytes
    real: str  # the type of a double-precision number
    insertion_order: str  # the column that orders runs as they were stored
    order_column: str  # its definition, appended to CREATE TABLE runs where it is not implicit


SQLITE = Dialect(blob="BLOB", real="REAL", insertion_order="rowid", order_column="")
# PostgreSQL's REAL is single precision; its rows have no rowid.
POSTGRES = Dialect(
    blob="BYTEA",
    real="DOUBLE PRECISION",
    insertion_order="seq",
    order_column=", seq BIGINT GENERATED ALWAYS AS IDENTITY",
)


class Rows(Protocol):
    """The rows a statement returned (a driver's cursor)."""

    def fetchone(self) -> Any: ...
    def fetchall(self) -> list[Any]: ...
    def __iter__(self) -> Iterator[Any]: ...


class StoreError(RtscopeError):
    """A database refused a statement; ``reason`` is the driver's message on one line."""

    def __init__(self, message: str, reason: str):
        super().__init__(message)
        self.reason = reason


class Connection(abc.ABC):
    """An open store database. ``name`` says where it is in messages (a URL without its password)."""

    dialect: Dialect
    # What the driver raises: any refusal, and (a kind of it) a statement that breaks a key, which the store
    # turns into its own message.
    driver_error: type[Exception]
    integrity_error: type[Exception]

    def __init__(self, name: str):
        self.name = name
        self._writing = False

    def execute(self, sql: str, parameters: Sequence[Any] = ()) -> Rows:
        """Run one statement; StoreError (one line) when the database refuses it."""
        with self._translated():
            return self._execute(sql, parameters)

    def executemany(self, sql: str, rows: Sequence[Sequence[Any]]) -> None:
        """Run one statement once per row of parameters."""
        with self._translated():
            self._executemany(sql, rows)

    def script(self, sql: str) -> None:
        """Run statements separated by ";" (the schema's, which hold no other ";")."""
        for statement in sql.split(";"):
            if statement.strip():
                self.execute(statement)

    @contextlib.contextmanager
    def transaction(self) -> Iterator[None]:
        """Everything in the block is stored whole, or (on any exception) not at all. A refusal to write
        is "no permission to write runs in NAME"."""
        self._writing = True
        try:
            with self._translated(), self._transaction():
                yield
        finally:
            self._writing = False

    def lock(self) -> None:
        """Within a transaction: wait until no other process is changing the schema (making or upgrading it).
        Nothing to do where a transaction holds the database's one write lock (SQLite's)."""

    @abc.abstractmethod
    def close(self) -> None:
        """Close the connection."""

    @abc.abstractmethod
    def _execute(self, sql: str, parameters: Sequence[Any]) -> Rows: ...

    @abc.abstractmethod
    def _executemany(self, sql: str, rows: Sequence[Sequence[Any]]) -> None: ...

    @abc.abstractmethod
    def _transaction(self) -> contextlib.AbstractContextManager[object]: ...

    @abc.abstractmethod
    def _reason(self, error: Exception) -> str:
        """The driver's message for ``error``, on one line, with nothing secret in it."""

    @abc.abstractmethod
    def _denied(self, error: Exception) -> bool:
        """Whether ``error`` says the role or the file lacks the right to do it."""

    @contextlib.contextmanager
    def _translated(self) -> Iterator[None]:
        try:
            yield
        except self.integrity_error:
            raise
        except self.driver_error as error:
            reason = self._reason(error)
            if self._denied(error):
                what = "write" if self._writing else "read"
                raise StoreError(f"no permission to {what} runs in {self.name} ({reason})", reason) from None
            raise StoreError(f"results database {self.name}: {reason}", reason) from None


class SqliteConnection(Connection):
    """A store in one SQLite file."""

    dialect = SQLITE
    driver_error = sqlite3.Error
    integrity_error = sqlite3.IntegrityError

    def __init__(self, database: str, name: str, *, uri: bool = False):
        """Open ``database`` (a path, or a file: URI with ``uri``); RtscopeError when it cannot be opened."""
        super().__init__(name)
        try:
            # A writer holds the lock only for one short transaction: waiting for it is better than failing.
            # Transactions are this class's, explicit (isolation_level None).
            self._db = sqlite3.connect(database, uri=uri, timeout=10, isolation_level=None)
        except sqlite3.Error as error:
            raise RtscopeError(f"cannot open results database {name}: {error}") from None
        self._db.execute("PRAGMA foreign_keys = ON")

    def close(self) -> None:
        self._db.close()

    def _execute(self, sql: str, parameters: Sequence[Any]) -> Rows:
        return self._db.execute(sql, parameters)

    def _executemany(self, sql: str, rows: Sequence[Sequence[Any]]) -> None:
        self._db.executemany(sql, rows)

    @contextlib.contextmanager
    def _transaction(self) -> Iterator[None]:
        # IMMEDIATE takes the write lock at once: what the transaction reads stays true until it commits.
        self._db.execute("BEGIN IMMEDIATE")
        try:
            yield
            self._db.execute("COMMIT")
        except BaseException:  # a failed COMMIT too: the next transaction must not start inside this one
            self._db.rollback()
            raise

    def _reason(self, error: Exception) -> str:
        return " ".join(str(error).split())

    def _denied(self, error: Exception) -> bool:
        return isinstance(error, sqlite3.Error) and error.sqlite_errorname == "SQLITE_READONLY"
