"""Slow and oversized clients on real loopback sockets: the service hangs up on time.

Each client here misbehaves on purpose (headers or a body trickled, or a request to
/slack/events that never sends its body); the pauses between its bytes are the client's
behaviour under test, not waits for the service.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from yarl import URL

from bot.service.server import Server
from slack_emulator import SlackEmulator

from .harness import RELAY_TOKEN, in_process
from .test_relay import ask_posts

HEADER_TIMEOUT_S = 1.0
BODY_TIMEOUT_S = 1.0
# Loopback, a busy 2-core machine: how late a hang-up may come and still count as on time.
SLACK_S = 1.5
TRICKLE_S = 0.25  # the slow client's pause between bytes


@pytest.fixture
async def strict(emu: SlackEmulator, tmp_path: Path) -> AsyncIterator[Server]:
    async with in_process(
        emu,
        tmp_path / "asks.db",
        SLACK_QUESTIONS_HEADER_TIMEOUT=str(HEADER_TIMEOUT_S),
        SLACK_QUESTIONS_BODY_TIMEOUT=str(BODY_TIMEOUT_S),
    ) as running:
        yield running


async def connect(server: Server) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    url = URL(server.url)
    assert url.host is not None
    assert url.port is not None
    return await asyncio.open_connection(url.host, url.port)


async def trickle(writer: asyncio.StreamWriter, data: bytes) -> None:
    """Send `data` a byte at a time until the service hangs up."""
    with contextlib.suppress(ConnectionError):
        for byte in data:
            writer.write(bytes([byte]))
            await writer.drain()
            await asyncio.sleep(TRICKLE_S)


async def until_hung_up(reader: asyncio.StreamReader, within: float) -> bytes:
    """Everything the service sent before closing the connection (within `within` s)."""
    received = b""
    async with asyncio.timeout(within):
        with contextlib.suppress(ConnectionError):
            while chunk := await reader.read(65536):
                received += chunk
    return received


async def response(reader: asyncio.StreamReader, within: float) -> tuple[bytes, bytes]:
    """The status line and body of the service's answer, read within `within` s."""
    async with asyncio.timeout(within):
        head = await reader.readuntil(b"\r\n\r\n")
        status, *lines = head.decode().split("\r\n")
        length = next(
            int(v) for k, _, v in (ln.partition(": ") for ln in lines) if k == "Content-Length"
        )
        return status.encode(), await reader.readexactly(length)


def request_head(path: str, headers: dict[str, str]) -> bytes:
    lines = [f"POST {path} HTTP/1.1", "Host: 127.0.0.1", *(f"{k}: {v}" for k, v in headers.items())]
    return ("\r\n".join(lines) + "\r\n\r\n").encode()


async def test_a_client_sending_its_headers_a_byte_at_a_time_is_disconnected_within_the_header_timeout(
    strict: Server, emu: SlackEmulator
) -> None:
    reader, writer = await connect(strict)
    started = time.monotonic()
    sender = asyncio.create_task(trickle(writer, request_head("/v1/asks", {"X-Pad": "a" * 200})))
    try:
        received = await until_hung_up(reader, HEADER_TIMEOUT_S + SLACK_S)
    finally:
        sender.cancel()
        writer.close()
    assert received == b""
    assert time.monotonic() - started >= HEADER_TIMEOUT_S * 0.9
    assert ask_posts(emu) == []


async def test_a_client_sending_its_body_slowly_is_answered_408_and_disconnected_within_the_body_timeout(
    strict: Server, emu: SlackEmulator
) -> None:
    reader, writer = await connect(strict)
    body = b'{"questions": [{"id": "db", "question": "Which database?"}]}'.ljust(400)
    writer.write(
        request_head(
            "/v1/asks",
            {
                "Authorization": f"Bearer {RELAY_TOKEN}",
                "Content-Type": "application/json",
                "Content-Length": str(len(body)),
            },
        )
    )
    await writer.drain()
    sender = asyncio.create_task(trickle(writer, body))
    try:
        received = await until_hung_up(reader, BODY_TIMEOUT_S + SLACK_S)
    finally:
        sender.cancel()
        writer.close()
    assert received.startswith(b"HTTP/1.1 408 Request Timeout\r\n")
    assert received.endswith(f"no complete body within {BODY_TIMEOUT_S:g} s".encode())
    assert ask_posts(emu) == []


@pytest.mark.parametrize(
    ("headers", "reason"),
    [
        ({}, "no X-Slack-Request-Timestamp header"),
        ({"X-Slack-Request-Timestamp": "{now}"}, "no X-Slack-Signature header"),
        (
            {"X-Slack-Request-Timestamp": "{stale}", "X-Slack-Signature": "v0=" + "0" * 64},
            "X-Slack-Request-Timestamp is over 5 minutes from now",
        ),
        (
            {"X-Slack-Request-Timestamp": "{ahead}", "X-Slack-Signature": "v0=" + "0" * 64},
            "X-Slack-Request-Timestamp is over 5 minutes from now",
        ),
    ],
    ids=["no-headers", "no-signature", "stale", "from-the-future"],
)
async def test_slack_events_refuses_401_a_request_without_fresh_slack_headers_before_its_body_arrives(
    strict: Server, emu: SlackEmulator, headers: dict[str, str], reason: str
) -> None:
    now = int(time.time())
    stamps = {"now": now, "stale": now - 301, "ahead": now + 301}
    calls = list(emu.calls)
    reader, writer = await connect(strict)
    head = {k: v.format(**stamps) for k, v in headers.items()}
    # The headers promise a body that never comes: the answer must not wait for it.
    writer.write(request_head("/slack/events", {**head, "Content-Length": "100"}))
    await writer.drain()
    try:
        status, text = await response(reader, BODY_TIMEOUT_S / 2)
    finally:
        writer.close()
    assert (status, text) == (b"HTTP/1.1 401 Unauthorized", reason.encode())
    assert emu.calls == calls


async def test_slack_events_refuses_413_a_body_over_the_limit_before_reading_it(
    strict: Server, emu: SlackEmulator
) -> None:
    calls = list(emu.calls)
    reader, writer = await connect(strict)
    head = {
        "X-Slack-Request-Timestamp": str(int(time.time())),
        "X-Slack-Signature": "v0=" + "0" * 64,
        "Content-Length": str(10 * 1024 * 1024),
    }
    writer.write(request_head("/slack/events", head))
    await writer.drain()
    try:
        status, text = await response(reader, BODY_TIMEOUT_S / 2)
    finally:
        writer.close()
    assert (status, text) == (
        b"HTTP/1.1 413 Request Entity Too Large",
        b"the body is 10485760 bytes, over the 262144 this endpoint takes",
    )
    assert emu.calls == calls


async def test_slack_events_refuses_413_a_chunked_body_once_it_outgrows_the_limit(
    strict: Server, emu: SlackEmulator
) -> None:
    calls = list(emu.calls)
    reader, writer = await connect(strict)
    head = {
        "X-Slack-Request-Timestamp": str(int(time.time())),
        "X-Slack-Signature": "v0=" + "0" * 64,
        "Transfer-Encoding": "chunked",
    }
    chunk = b"x" * 65536
    writer.write(request_head("/slack/events", head))
    for _ in range(5):  # 320 KiB, over the 256 KiB limit; no length announced
        writer.write(f"{len(chunk):x}\r\n".encode() + chunk + b"\r\n")
    writer.write(b"0\r\n\r\n")
    await writer.drain()
    try:
        status, text = await response(reader, BODY_TIMEOUT_S)
    finally:
        writer.close()
    assert (status, text) == (
        b"HTTP/1.1 413 Request Entity Too Large",
        b"the body is over the 262144 bytes this endpoint takes",
    )
    assert emu.calls == calls


async def test_a_kept_alive_connection_is_closed_when_the_next_request_is_not_sent_in_time(
    strict: Server,
) -> None:
    reader, writer = await connect(strict)
    writer.write(b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
    await writer.drain()
    try:
        status, text = await response(reader, HEADER_TIMEOUT_S)
        answered = time.monotonic()
        # Kept alive, then idle: the next request's headers have the same deadline.
        rest = await until_hung_up(reader, HEADER_TIMEOUT_S + SLACK_S)
    finally:
        writer.close()
    assert (status, text, rest) == (b"HTTP/1.1 200 OK", b'{"ok": true}', b"")
    assert time.monotonic() - answered >= HEADER_TIMEOUT_S * 0.9


async def test_a_body_sent_within_the_deadline_is_read_as_usual(strict: Server) -> None:
    body = b'{"questions": [{"id": "db", "question": "Which database?"}]}'
    reader, writer = await connect(strict)
    writer.write(
        request_head(
            "/v1/asks",
            {
                "Authorization": f"Bearer {RELAY_TOKEN}",
                "Content-Type": "application/json",
                "Content-Length": str(len(body)),
            },
        )
    )
    half = len(body) // 2
    writer.write(body[:half])
    await writer.drain()
    await asyncio.sleep(BODY_TIMEOUT_S / 2)  # the client's pause: well inside the deadline
    writer.write(body[half:])
    await writer.drain()
    try:
        status, _ = await response(reader, BODY_TIMEOUT_S)
    finally:
        writer.close()
    assert status == b"HTTP/1.1 201 Created"
