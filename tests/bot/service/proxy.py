"""A TCP proxy on 127.0.0.1 whose connections a test can cut, to drop a client mid-request."""

from __future__ import annotations

import asyncio
import contextlib
from types import TracebackType


class CuttableProxy:
    """Forwards 127.0.0.1:<port> to `target_port`; `cut()` drops every open connection."""

    def __init__(self, target_port: int) -> None:
        self._target = target_port
        self._server: asyncio.Server | None = None
        self._writers: set[asyncio.StreamWriter] = set()
        self._pumps: set[asyncio.Task[None]] = set()
        self.connections = 0
        self.opened = asyncio.Event()

    @property
    def url(self) -> str:
        assert self._server is not None
        port = self._server.sockets[0].getsockname()[1]
        return f"http://127.0.0.1:{port}"

    async def __aenter__(self) -> CuttableProxy:
        self._server = await asyncio.start_server(self._accept, "127.0.0.1", 0)
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        assert self._server is not None
        self._server.close()
        self.cut()
        await self._server.wait_closed()
        for pump in list(self._pumps):
            pump.cancel()
        await asyncio.gather(*self._pumps, return_exceptions=True)

    def cut(self) -> None:
        """Close every connection now, both ways."""
        for writer in list(self._writers):
            writer.transport.abort()
        self._writers.clear()

    async def _accept(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.connections += 1
        self.opened.set()
        upstream_reader, upstream_writer = await asyncio.open_connection("127.0.0.1", self._target)
        self._writers.update({writer, upstream_writer})
        for source, sink in ((reader, upstream_writer), (upstream_reader, writer)):
            pump = asyncio.create_task(self._pump(source, sink))
            self._pumps.add(pump)
            pump.add_done_callback(self._pumps.discard)

    async def _pump(self, source: asyncio.StreamReader, sink: asyncio.StreamWriter) -> None:
        with contextlib.suppress(ConnectionError, OSError):
            while data := await source.read(65536):
                sink.write(data)
                await sink.drain()
        with contextlib.suppress(Exception):
            sink.close()
