"""A small HTTP/1.1 client on asyncio streams: the hook's `Transport` to the relay.

The hook makes a handful of requests (create, held waits, a withdrawal) and starts before
every gated tool call, so it does not pay aiohttp's import (about a third of its start-up).
One connection per request (`Connection: close`): nothing to pool or keep alive. TLS for
https, verified against the system's certificates (`ssl` is imported only then).
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from typing import TYPE_CHECKING, Final
from urllib.parse import urlsplit

from provider.relay_client import Reply, TransportError

if TYPE_CHECKING:
    import ssl

# The relay's replies are small JSON: anything much larger is not the relay.
MAX_REPLY_BYTES: Final = 1024 * 1024
USER_AGENT: Final = "slack-questions-hook"


class BadReply(TransportError):
    """What came back is not an HTTP/1.1 response."""


class StreamsTransport:
    """`provider.relay_client.Transport` over `asyncio.open_connection`."""

    def __init__(self, tls: ssl.SSLContext | None = None) -> None:
        """`tls`: whom an https relay must prove to be (default: the system's certificates)."""
        self._tls = tls

    async def request(
        self,
        method: str,
        url: str,
        *,
        body: bytes | None,
        headers: Mapping[str, str],
        total: float,
        connect: float,
    ) -> Reply:
        """Send one request and read the whole reply; `TransportError` if none came."""
        parts = urlsplit(url)
        host = parts.hostname or ""
        secure = parts.scheme == "https"
        port = parts.port or (443 if secure else 80)
        target = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
        lines = [
            f"{method} {target} HTTP/1.1",
            f"Host: {parts.netloc.rpartition('@')[2]}",
            f"User-Agent: {USER_AGENT}",
            "Connection: close",
            *(f"{name}: {value}" for name, value in headers.items()),
        ]
        if body is not None or method in ("POST", "PUT"):
            lines.append(f"Content-Length: {len(body or b'')}")
        head = ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1")
        try:
            async with asyncio.timeout(total):
                async with asyncio.timeout(connect):
                    reader, writer = await asyncio.open_connection(
                        host, port, ssl=self._context() if secure else None
                    )
                try:
                    writer.write(head + (body or b""))
                    await writer.drain()
                    return await _read_reply(reader)
                finally:
                    writer.close()
        except (OSError, TimeoutError, asyncio.IncompleteReadError, asyncio.LimitOverrunError) as e:
            raise TransportError(f"{type(e).__name__}: {e}") from e

    def _context(self) -> ssl.SSLContext:
        if self._tls is None:
            import ssl  # only an https relay needs it

            self._tls = ssl.create_default_context()
        return self._tls

    async def close(self) -> None:
        """Nothing is kept open between requests."""


async def _read_reply(reader: asyncio.StreamReader) -> Reply:
    status_line = (await reader.readline()).decode("latin-1")
    version, _, rest = status_line.partition(" ")
    code = rest[:3]
    if not version.startswith("HTTP/1.") or not code.isdigit():
        raise BadReply(f"not an HTTP reply: {status_line[:80]!r}")
    fields: dict[str, str] = {}
    while (line := (await reader.readline()).decode("latin-1").strip()) != "":
        name, _, value = line.partition(":")
        fields[name.strip().lower()] = value.strip()
    if fields.get("transfer-encoding", "").lower() == "chunked":
        data = await _chunks(reader)
    elif "content-length" in fields:
        length = int(fields["content-length"]) if fields["content-length"].isdigit() else -1
        if not 0 <= length <= MAX_REPLY_BYTES:
            raise BadReply(f"a reply of {fields['content-length']!r} bytes")
        data = await reader.readexactly(length)
    else:
        data = await reader.read(MAX_REPLY_BYTES)
    return Reply(int(code), data.decode("utf-8", "replace"), fields.get("retry-after", ""))


async def _chunks(reader: asyncio.StreamReader) -> bytes:
    data = bytearray()
    while True:
        size_line = (await reader.readline()).split(b";")[0].strip()
        try:
            size = int(size_line, 16)
        except ValueError:
            raise BadReply(f"a bad chunk size: {size_line[:20]!r}") from None
        if size == 0:
            return bytes(data)  # trailers, if any, are left unread: the connection closes
        if len(data) + size > MAX_REPLY_BYTES:
            raise BadReply("a chunked reply too large to come from the relay")
        data += await reader.readexactly(size)
        await reader.readexactly(2)  # the CRLF after each chunk
