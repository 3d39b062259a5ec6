"""A store in a PostgreSQL database (13 or newer) a lab shares, through psycopg 3.

The URL is libpq's (postgresql://[user[:password]@]host[:port]/dbname[?param=value…]): TLS (sslmode,
sslrootcert, …) and every other setting pass through to libpq as its parameters. The password comes from
the URL, PGPASSWORD, PGPASSFILE or ~/.pgpass, as libpq finds it; rtscope never shows it: every message names
the store by its URL with the password masked.
"""

import contextlib
from collections.abc import Sequence
from typing import Any
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

import psycopg
from psycopg import conninfo, errors

from rtscope.errors import RtscopeError
from rtscope.store.connection import POSTGRES, Connection, Rows

# Without it libpq waits for an unreachable server as long as the network lets it.
CONNECT_TIMEOUT_S = 10
MASK = "***"
# Any number: the key of the advisory lock that makes one process at a time create or upgrade a store.
_SCHEMA_LOCK = 0x72747363


def masked(url: str) -> str:
    """``url`` with its password (in the user part or as a parameter) replaced by ***."""
    parts = urlsplit(url)
    netloc = parts.netloc
    if parts.password is not None:
        user, _, host = netloc.rpartition("@")
        netloc = f"{user.partition(':')[0]}:{MASK}@{host}"
    query = urlencode(
        [(key, MASK if key == "password" else value) for key, value in parse_qsl(parts.query, keep_blank_values=True)],
        safe="*/:",
    )
    return urlunsplit(parts._replace(netloc=netloc, query=query))


class PostgresConnection(Connection):
    """A connection to a PostgreSQL database, in autocommit but for :meth:`transaction`."""

    dialect = POSTGRES
    driver_error = psycopg.Error
    integrity_error = psycopg.IntegrityError

    def __init__(self, url: str):
        """Connect; RtscopeError in one line when the URL is malformed, or the server unreachable (within
        connect_timeout, CONNECT_TIMEOUT_S unless the URL sets it) or refusing the login."""
        super().__init__(masked(url))
        try:
            parameters: dict[str, Any] = conninfo.conninfo_to_dict(url)
        except psycopg.ProgrammingError:
            # libpq's message quotes the URL, password and all.
            raise RtscopeError(f"{self.name} is not a valid PostgreSQL URL") from None
        self._secret = str(parameters.get("password") or "")
        parameters.setdefault("connect_timeout", CONNECT_TIMEOUT_S)
        try:
            self._db = psycopg.connect(**parameters, autocommit=True)
        except psycopg.Error as error:
            raise RtscopeError(f"cannot connect to results database {self.name}: {self._reason(error)}") from None

    def lock(self) -> None:
        self.execute("SELECT pg_advisory_xact_lock(?)", (_SCHEMA_LOCK,))

    def is_empty(self) -> bool:
        """Whether the database has no table in its schema yet (one rtscope may make a store in)."""
        return self.execute("SELECT 1 FROM pg_tables WHERE schemaname = current_schema() LIMIT 1").fetchone() is None

    def close(self) -> None:
        self._db.close()

    def _execute(self, sql: str, parameters: Sequence[Any]) -> Rows:
        return self._db.execute(_placeholders(sql), parameters)

    def _executemany(self, sql: str, rows: Sequence[Sequence[Any]]) -> None:
        with self._db.cursor() as cursor:
            cursor.executemany(_placeholders(sql), rows)

    def _transaction(self) -> contextlib.AbstractContextManager[object]:
        return self._db.transaction()

    def _reason(self, error: Exception) -> str:
        # The server's own message without the statement it quotes; a failed connection has only its text.
        primary = error.diag.message_primary if isinstance(error, psycopg.Error) else None
        reason = " ".join((primary or str(error)).split())
        return reason.replace(self._secret, MASK) if self._secret else reason

    def _denied(self, error: Exception) -> bool:
        return isinstance(error, errors.InsufficientPrivilege)


def _placeholders(sql: str) -> str:
    # The store's statements hold no "?" or "%" but their parameters.
    return sql.replace("?", "%s")
