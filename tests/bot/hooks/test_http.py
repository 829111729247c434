"""The hook's HTTP/1.1 client (bot/hooks/http.py) against scripted servers on loopback."""

from __future__ import annotations

import asyncio
import ssl
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import pytest

from bot.hooks.http import BadReply, StreamsTransport
from provider.relay_client import Reply, TransportError

from ..service.harness import free_port

# A self-signed certificate for 127.0.0.1 and localhost (openssl req -x509, 100 years).
TLS = Path(__file__).parent / "tls"


@asynccontextmanager
async def replying(
    raw: bytes, tls: ssl.SSLContext | None = None
) -> AsyncIterator[tuple[str, list[bytes]]]:
    """A server that records each request's head and body, then sends `raw` and closes
    (over TLS with `tls`)."""
    heads: list[bytes] = []

    async def serve(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        head = await reader.readuntil(b"\r\n\r\n")
        length = next(
            (
                int(line.split(b":")[1])
                for line in head.split(b"\r\n")
                if line.startswith(b"Content-Length:")
            ),
            0,
        )
        heads.append(head + await reader.readexactly(length))
        writer.write(raw)
        await writer.drain()
        writer.close()

    server = await asyncio.start_server(serve, "127.0.0.1", 0, ssl=tls)
    scheme = "https" if tls else "http"
    try:
        yield f"{scheme}://127.0.0.1:{server.sockets[0].getsockname()[1]}", heads
    finally:
        server.close()
        await server.wait_closed()


async def post(url: str, trusted: ssl.SSLContext | None = None) -> Reply:
    return await StreamsTransport(trusted).request(
        "POST",
        f"{url}/v1/asks?wait=1",
        body=b'{"a": 1}',
        headers={"Authorization": "Bearer t", "Content-Type": "application/json"},
        total=5,
        connect=1,
    )


async def test_a_request_is_sent_as_http_1_1_with_its_headers_and_body() -> None:
    async with replying(b"HTTP/1.1 204 No Content\r\nContent-Length: 0\r\n\r\n") as (url, heads):
        await post(url)
    port = url.rpartition(":")[2]
    assert heads == [
        b"POST /v1/asks?wait=1 HTTP/1.1\r\n"
        b"Host: 127.0.0.1:" + port.encode() + b"\r\n"
        b"User-Agent: slack-questions-hook\r\nConnection: close\r\n"
        b"Authorization: Bearer t\r\nContent-Type: application/json\r\n"
        b'Content-Length: 8\r\n\r\n{"a": 1}'
    ]


async def test_a_reply_with_a_length_is_read_with_its_status_and_retry_after() -> None:
    raw = b"HTTP/1.1 429 Too Many\r\nRetry-After: 7\r\nContent-Length: 4\r\n\r\nbusy"
    async with replying(raw) as (url, _):
        assert await post(url) == Reply(429, "busy", "7")


async def test_a_chunked_reply_is_joined() -> None:
    raw = (
        b'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\n{"i\r\n6\r\nd": 1}\r\n0\r\n\r\n'
    )
    async with replying(raw) as (url, _):
        assert await post(url) == Reply(200, '{"id": 1}')


async def test_a_reply_that_is_not_http_is_refused() -> None:
    async with replying(b"<html>proxy</html>") as (url, _):
        with pytest.raises(BadReply, match="not an HTTP reply: '<html>proxy</html>'"):
            await post(url)


async def test_a_refused_connection_is_a_transport_error() -> None:
    with pytest.raises(TransportError, match="ConnectionRefusedError"):
        await post(f"http://127.0.0.1:{free_port()}")


def relay_certificate() -> ssl.SSLContext:
    served = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    served.load_cert_chain(TLS / "relay.crt", TLS / "relay.key")
    return served


async def test_an_https_relay_is_reached_over_tls_when_its_certificate_is_trusted() -> None:
    trusted = ssl.create_default_context(cafile=TLS / "relay.crt")
    raw = b"HTTP/1.1 201 Created\r\nContent-Length: 2\r\n\r\n{}"
    async with replying(raw, relay_certificate()) as (url, heads):
        assert await post(url, trusted) == Reply(201, "{}")
    assert heads[0].startswith(b"POST /v1/asks?wait=1 HTTP/1.1\r\n")


async def test_an_https_relay_the_system_does_not_trust_is_refused() -> None:
    raw = b"HTTP/1.1 201 Created\r\nContent-Length: 2\r\n\r\n{}"
    async with replying(raw, relay_certificate()) as (url, heads):
        with pytest.raises(TransportError, match="CERTIFICATE_VERIFY_FAILED"):
            await post(url)
    assert heads == []  # nothing was sent, not even the token
