"""`mcp --http` lets in only its own clients: a token off loopback, Host and Origin checked.

Bound to 0.0.0.0 (every interface, so not loopback) the tests still only ever send to
127.0.0.1.
"""

from __future__ import annotations

import asyncio
import contextlib
import sys
from collections.abc import AsyncIterator
from dataclasses import dataclass

import aiohttp
import httpx2
import pytest
import pytest_asyncio
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp_types import Implementation

from bot.service.server import Server
from provider.tool import NAME
from slack_emulator import SlackEmulator

from ..harness import ALICE
from ..service.harness import RELAY_TOKEN, ROOT, free_port, in_process, service_emulator
from ..service.test_relay import DB, posted
from .test_http import stopped
from .test_stdio import mcp_env
from .test_tools import texts

TOKEN = "mcp-token-0123456789abcdef"
ACCEPT = {"Accept": "application/json, text/event-stream"}
INIT = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-11-25",
        "capabilities": {},
        "clientInfo": {"name": "raw-http", "version": "0"},
    },
}


async def launch(server: Server, bind: str, port: int, **extra: str) -> asyncio.subprocess.Process:
    env = mcp_env(
        SLACK_QUESTIONS_RELAY_URL=server.url, SLACK_QUESTIONS_RELAY_TOKEN=RELAY_TOKEN, **extra
    )
    return await asyncio.create_subprocess_exec(
        *(sys.executable, "-m", "bot", "mcp", "--http", f"{bind}:{port}"),
        cwd=ROOT,
        env=env,
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.DEVNULL,
        stderr=asyncio.subprocess.PIPE,
    )


@contextlib.asynccontextmanager
async def listening(server: Server, bind: str, **extra: str) -> AsyncIterator[str]:
    """The MCP server bound to `bind`, once it listens; its URL on 127.0.0.1."""
    port = free_port()
    proc = await launch(server, bind, port, **extra)
    assert proc.stderr is not None
    try:
        while b"Uvicorn running on" not in (
            line := await asyncio.wait_for(proc.stderr.readline(), 20)
        ):
            assert line, "the MCP server exited before listening"
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        assert await stopped(proc) == 0


async def refused(server: Server, bind: str, **extra: str) -> tuple[int, str]:
    """The exit code and stderr of a server expected not to start."""
    proc = await launch(server, bind, free_port(), **extra)
    try:
        _, stderr = await asyncio.wait_for(proc.communicate(), 20)
    finally:
        if proc.returncode is None:
            await stopped(proc)
    assert proc.returncode is not None
    return proc.returncode, stderr.decode()


async def initialize(url: str, **headers: str) -> tuple[int, dict[str, str], str]:
    async with (
        aiohttp.ClientSession() as http,
        http.post(url, json=INIT, headers=ACCEPT | headers) as response,
    ):
        return response.status, dict(response.headers), await response.text()


@pytest.fixture
async def guarded(server: Server) -> AsyncIterator[str]:
    async with listening(server, "0.0.0.0", SLACK_QUESTIONS_MCP_TOKEN=TOKEN) as url:
        yield url


@dataclass
class Refusing:
    """A guarded MCP server and the service it relays to, shared by the tests of requests it
    refuses: a refusal leaves both as they were, so each test need not start a process."""

    server: Server
    url: str


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def refusing(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[Refusing]:
    db = tmp_path_factory.mktemp("refusing") / "asks.db"
    async with (
        service_emulator() as emu,
        in_process(emu, db) as server,
        listening(server, "0.0.0.0", SLACK_QUESTIONS_MCP_TOKEN=TOKEN) as url,
    ):
        yield Refusing(server, url)
    assert emu.violations == []


# The tests of refusals share `refusing`, so they run on its (the module's) event loop.
ON_THE_SHARED_LOOP = pytest.mark.asyncio(loop_scope="module")


async def test_every_interface_without_a_token_refuses_to_start_and_says_to_set_one(
    server: Server,
) -> None:
    code, stderr = await refused(server, "0.0.0.0")
    assert code == 2
    assert "set SLACK_QUESTIONS_MCP_TOKEN" in stderr
    assert "Uvicorn running" not in stderr


async def test_a_token_too_short_refuses_to_start_saying_how_long_it_must_be(
    server: Server,
) -> None:
    code, stderr = await refused(server, "0.0.0.0", SLACK_QUESTIONS_MCP_TOKEN="short")
    assert code == 2
    assert "SLACK_QUESTIONS_MCP_TOKEN must be at least 16 characters (it has 5)" in stderr


async def test_a_malformed_allowed_host_refuses_to_start_naming_it(server: Server) -> None:
    code, stderr = await refused(
        server, "127.0.0.1", SLACK_QUESTIONS_MCP_ALLOWED_HOSTS="ok.example, http://bad/"
    )
    assert code == 2
    assert "SLACK_QUESTIONS_MCP_ALLOWED_HOSTS: 'http://bad/' is not HOST or HOST:PORT" in stderr


@ON_THE_SHARED_LOOP
async def test_without_a_token_a_request_is_refused_401_asking_for_a_bearer(
    refusing: Refusing,
) -> None:
    status, headers, _ = await initialize(refusing.url)
    assert status == 401
    assert headers["WWW-Authenticate"].startswith("Bearer ")
    assert await refusing.server.store.recent() == []


@ON_THE_SHARED_LOOP
async def test_a_wrong_token_is_refused_401(refusing: Refusing) -> None:
    status, headers, _ = await initialize(refusing.url, Authorization=f"Bearer {TOKEN}x")
    assert status == 401
    assert headers["WWW-Authenticate"].startswith("Bearer ")


async def test_with_the_token_a_client_gets_the_answer(
    guarded: str, emu: SlackEmulator, era: str
) -> None:
    http = httpx2.AsyncClient(
        headers={"Authorization": f"Bearer {TOKEN}"}, timeout=httpx2.Timeout(30, read=300)
    )
    async with (
        http,
        Client(
            streamable_http_client(guarded, http_client=http),
            mode=era,
            client_info=Implementation(name="claude-code", version="1"),
        ) as mcp,
    ):
        asking = asyncio.create_task(mcp.call_tool(NAME, {"questions": [DB]}))
        await emu.person(ALICE).click(await posted(emu), text="SQLite")
        result = await asyncio.wait_for(asking, 20)
    assert texts(result) == ['{"answers":[{"id":"db","selected":["SQLite"]}]}']


@ON_THE_SHARED_LOOP
async def test_with_the_token_a_foreign_origin_is_refused_403(refusing: Refusing) -> None:
    status, _, body = await initialize(
        refusing.url, Authorization=f"Bearer {TOKEN}", Origin="http://evil.example"
    )
    assert (status, body) == (403, "Invalid Origin header")


@ON_THE_SHARED_LOOP
async def test_with_the_token_a_foreign_host_is_refused_421(refusing: Refusing) -> None:
    status, _, body = await initialize(
        refusing.url, Authorization=f"Bearer {TOKEN}", Host="evil.example:80"
    )
    assert (status, body) == (421, "Invalid Host header")


async def test_a_rebinding_page_on_loopback_is_refused_421(server: Server) -> None:
    async with listening(server, "127.0.0.1") as url:
        status, _, body = await initialize(url, Host="rebound.example:8765")
    assert (status, body) == (421, "Invalid Host header")


async def test_a_configured_host_and_origin_are_let_in(server: Server) -> None:
    async with listening(
        server,
        "0.0.0.0",
        SLACK_QUESTIONS_MCP_TOKEN=TOKEN,
        SLACK_QUESTIONS_MCP_ALLOWED_HOSTS="mcp.example.com",
        SLACK_QUESTIONS_MCP_ALLOWED_ORIGINS="https://app.example.com",
    ) as url:
        status, headers, _ = await initialize(
            url,
            Authorization=f"Bearer {TOKEN}",
            Host="mcp.example.com",
            Origin="https://app.example.com",
        )
        loopback, _, _ = await initialize(url, Authorization=f"Bearer {TOKEN}")
    assert status == 200
    assert "mcp-session-id" in {name.lower() for name in headers}
    assert loopback == 421  # the list replaces the default: only the names configured
