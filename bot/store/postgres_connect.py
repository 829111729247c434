"""Connecting to PostgreSQL, and saying plainly what to fix when it fails.

Both the store's pool and the notifier's LISTEN connection start here, so a wrong URL, a
wrong password, a missing database or a server that does not answer each get one message
that names the server (never the password) and what to change.
"""

from __future__ import annotations

import asyncio
import re

import psycopg
from psycopg.conninfo import conninfo_to_dict
from psycopg.rows import TupleRow

CONNECT_TIMEOUT_S = 5.0
URL_FORM = "write it as postgresql://USER:PASSWORD@HOST:PORT/DATABASE"


class PostgresStoreError(Exception):
    """The PostgreSQL store cannot be used; the message names the server and the cause."""

    def __init__(self, where: str, problem: str) -> None:
        super().__init__(f"ask store {where}: {problem}")
        self.where = where
        self.problem = problem


class Target:
    """A parsed PostgreSQL URL (or key=value string), and how to show it without secrets."""

    def __init__(self, url: str) -> None:
        try:
            params = conninfo_to_dict(url)
        except psycopg.Error as error:
            raise PostgresStoreError(
                "(unparsed URL)",
                f"the PostgreSQL URL is malformed ({_redact(_first_line(error))}); {URL_FORM}",
            ) from error
        self.url = url
        self.host = str(params.get("host") or "localhost")
        self.port = str(params.get("port") or "5432")
        self.user = str(params["user"]) if params.get("user") else None
        self.dbname = str(params.get("dbname") or self.user or "")

    @property
    def server(self) -> str:
        """host:port."""
        return f"{self.host}:{self.port}"

    def __str__(self) -> str:
        """The URL without its password: safe in logs and errors."""
        user = f"{self.user}@" if self.user else ""
        return f"postgresql://{user}{self.server}/{self.dbname}"


async def connect(
    target: Target, *, application_name: str, within: float = CONNECT_TIMEOUT_S
) -> psycopg.AsyncConnection[TupleRow]:
    """An autocommit connection within `within` seconds, or `PostgresStoreError` saying what
    to fix."""
    try:
        async with asyncio.timeout(within):
            return await psycopg.AsyncConnection.connect(
                target.url,
                autocommit=True,
                fallback_application_name=application_name,
                # libpq's own limit (at least 2 s) backs ours up; ours may be shorter.
                connect_timeout=max(2, round(within)),
            )
    except TimeoutError as error:
        raise PostgresStoreError(str(target), _no_answer(target, within)) from error
    except psycopg.Error as error:
        raise PostgresStoreError(str(target), explain(error, target, within)) from error


def explain(error: psycopg.Error, target: Target, timeout: float) -> str:
    """What a failed connection means for whoever set the URL.

    libpq reports connection failures as text without an SQLSTATE, so this reads its
    (long-stable) wording; anything unrecognised is passed on as libpq said it.
    """
    text = str(error)
    if isinstance(error, psycopg.errors.ConnectionTimeout) or "timeout expired" in text:
        return _no_answer(target, timeout)
    if "for connection option" in text:  # e.g. a port that is not a number
        return f"the PostgreSQL URL is malformed ({_first_line(error)}); {URL_FORM}"
    if "password authentication failed" in text or "no password supplied" in text:
        return (
            f"PostgreSQL at {target.server} refused the password of user {target.user!r};"
            " fix the user and password in the URL"
        )
    if found := re.search(r'database "(.*?)" does not exist', text):
        return (
            f"database {found.group(1)!r} does not exist on {target.server}; create it"
            f" (createdb {found.group(1)}) or fix the database name in the URL"
        )
    if found := re.search(r'role "(.*?)" does not exist', text):
        return (
            f"PostgreSQL at {target.server} has no user {found.group(1)!r}; create it"
            " or fix the user in the URL"
        )
    if "Connection refused" in text:
        return (
            f"nothing accepts connections at {target.server} (connection refused); start"
            " PostgreSQL there or fix the host and port in the URL"
        )
    if "failed to resolve host" in text or "could not translate host name" in text:
        return f"cannot resolve host {target.host!r}; fix the host in the URL"
    return f"cannot connect to PostgreSQL ({_first_line(error)})"


def _no_answer(target: Target, timeout: float) -> str:
    return (
        f"no answer from PostgreSQL at {target.server} within {timeout:g} s; check the host,"
        " the port and any firewall in between"
    )


def _redact(text: str) -> str:
    """`text` with the password of any URL in it replaced by ***."""
    return re.sub(r"(://[^:/@\s\"]*:)[^@\s\"]*@", r"\1***@", text)


def _first_line(error: Exception) -> str:
    lines = str(error).strip().splitlines()
    return lines[0] if lines else type(error).__name__
