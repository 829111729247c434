"""`Connected`: a SQL store's start, close, readiness probe and `async with`, forwarded to
what it runs on (`SqliteFile`, `PostgresPool`), so the store's own class holds its queries."""

from __future__ import annotations

from types import TracebackType
from typing import Generic, Protocol, Self, TypeVar


class Database(Protocol):
    """What a store's connection machinery does for its lifetime."""

    async def start(self) -> None:
        """Open the connections and bring the schema up to date."""
        ...

    async def close(self) -> None:
        """Close the connections; closing twice is fine."""
        ...

    async def check_writable(self) -> None:
        """Raise, saying why, unless the database takes writes now."""
        ...


D = TypeVar("D", bound=Database)


class Connected(Generic[D]):
    """A store on the database `_db`: `await start()` … `await close()`, or `async with`."""

    def __init__(self, db: D) -> None:
        self._db = db

    async def start(self) -> None:
        """Open the database and bring its schema up to date; the error says what to fix."""
        await self._db.start()

    async def close(self) -> None:
        """Close the database's connections. Closing twice is fine."""
        await self._db.close()

    async def check_writable(self) -> None:
        """Readiness: the database takes writes now; an error saying why not (closed,
        read-only, locked past the busy timeout, a standby, the disk)."""
        await self._db.check_writable()

    async def __aenter__(self) -> Self:
        await self.start()
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.close()
