"""A TCP proxy on 127.0.0.1 that delays what it forwards: a replica on a slower network.

Used between one replica and PostgreSQL, so that replica's store calls take a round trip a
test chooses: a race the other replica would win in a millisecond is then run every time.
"""

from __future__ import annotations

import asyncio
import contextlib
from urllib.parse import urlsplit

from .proxy import CuttableProxy


class SlowProxy(CuttableProxy):
    """`CuttableProxy` that holds each chunk `delay` seconds, in order, before forwarding it."""

    def __init__(self, target_port: int, delay: float) -> None:
        super().__init__(target_port)
        self._delay = delay

    def through(self, url: str) -> str:
        """`url` (any scheme, on 127.0.0.1:`target_port`) reached through this proxy."""
        parts = urlsplit(url)
        assert parts.port is not None
        port = urlsplit(self.url).port
        return parts._replace(netloc=parts.netloc.replace(f":{parts.port}", f":{port}")).geturl()

    async def _pump(self, source: asyncio.StreamReader, sink: asyncio.StreamWriter) -> None:
        with contextlib.suppress(ConnectionError, OSError):
            while data := await source.read(65536):
                # The network's latency, not a test waiting for an event.
                await asyncio.sleep(self._delay)
                sink.write(data)
                await sink.drain()
        with contextlib.suppress(Exception):
            sink.close()
