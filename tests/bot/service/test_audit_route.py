"""`GET /v1/audit/export`: the audit export through the relay, admin callers only."""

from __future__ import annotations

import csv
import io
import json

import aiohttp

from bot.service.principals import mint
from bot.service.server import Server
from slack_emulator import SlackEmulator
from tests.bot.audit_asks import HEADER, ROWS, WORKSPACE, store_asks

from .credentials import credential
from .harness import RELAY_TOKEN, relay

DAY = "since=2026-12-01&until=2026-12-02"


async def download(
    http: aiohttp.ClientSession, url: str, token: str = RELAY_TOKEN
) -> tuple[int, str, str, str]:
    """(status, content type, disposition, body) of one export."""
    headers = {"Authorization": f"Bearer {token}"}
    async with http.get(url, headers=headers) as response:
        return (
            response.status,
            response.headers.get("Content-Type", ""),
            response.headers.get("Content-Disposition", ""),
            await response.text(),
        )


async def test_the_admin_token_downloads_the_csv_of_the_period(
    server: Server, emu: SlackEmulator, http: aiohttp.ClientSession
) -> None:
    await store_asks(server.store)
    found = await download(http, f"{server.url}/v1/audit/export?{DAY}&format=csv")
    rows = [row.replace(WORKSPACE, emu.identity.workspace_url) for row in ROWS]
    assert found == (
        200,
        "text/csv; charset=utf-8",
        'attachment; filename="asks.csv"',
        HEADER + "".join(rows),
    )


async def test_the_jsonl_download_is_the_csv_read_back(
    server: Server, http: aiohttp.ClientSession
) -> None:
    await store_asks(server.store)
    *_, as_csv = await download(http, f"{server.url}/v1/audit/export?{DAY}")
    status, media, _, as_jsonl = await download(
        http, f"{server.url}/v1/audit/export?{DAY}&format=jsonl"
    )
    assert (status, media) == (200, "application/x-ndjson; charset=utf-8")
    from_csv = list(csv.DictReader(io.StringIO(as_csv, newline="")))
    assert [json.loads(line) for line in as_jsonl.splitlines()] == from_csv
    assert len(from_csv) == 5


async def test_the_filters_select_as_the_command_does(
    server: Server, http: aiohttp.ClientSession
) -> None:
    await store_asks(server.store)

    async def ids(filters: str) -> list[str]:
        url = f"{server.url}/v1/audit/export?{DAY}&format=jsonl&{filters}"
        *_, body = await download(http, url)
        return [json.loads(line)["ask_id"] for line in body.splitlines()]

    assert await ids("agent=ci") == ["a1-person", "a4-batch", "a5-grant"]
    assert await ids("person=U0ALICE") == ["a1-person"]
    assert await ids("outcome=pending") == ["a3-plan"]
    assert await ids("agent=ci&outcome=answered") == ["a1-person", "a5-grant"]


async def test_an_agent_credential_is_refused_403_naming_who_may(
    server: Server, http: aiohttp.ClientSession
) -> None:
    token = await credential(server, "ci")
    status, body = await relay(http, "GET", f"{server.url}/v1/audit/export?{DAY}", token=token)
    credential_id = token.split("_")[1]
    assert (status, body["error"]) == (
        403,
        {
            "name": "RelayError",
            "code": "ADMIN_ONLY",
            "message": f"credential {credential_id} may not export the audit log: only the "
            "admin token SLACK_QUESTIONS_RELAY_TOKEN or an admin credential "
            "(python -m bot credentials create --admin) may",
        },
    )


async def test_an_admin_credential_may_export(server: Server, http: aiohttp.ClientSession) -> None:
    token, made = mint(agents=(), admin=True, now=0.0)
    await server.store.add_credential(made)
    status, *_ = await download(http, f"{server.url}/v1/audit/export?{DAY}", token=token)
    assert status == 200


async def test_no_token_is_401(server: Server, http: aiohttp.ClientSession) -> None:
    status, body = await relay(http, "GET", f"{server.url}/v1/audit/export?{DAY}", token=None)
    assert (status, body["error"]["code"]) == (401, "UNAUTHORIZED")


async def test_bad_parameters_are_each_named_400(
    server: Server, http: aiohttp.ClientSession
) -> None:
    url = f"{server.url}/v1/audit/export?until=soon&outcome=approved&format=xlsx"
    status, body = await relay(http, "GET", url)
    assert (status, body["error"]["code"], body["fields"]) == (
        400,
        "INVALID_BODY",
        [
            {"field": "since", "message": "required: an ISO-8601 date or time"},
            {
                "field": "until",
                "message": "until 'soon' is not an ISO-8601 date or time "
                "(e.g. 2026-12-01 or 2026-12-01T09:30:00Z)",
            },
            {
                "field": "outcome",
                "message": "outcome 'approved' is not one of pending, answered, withdrawn, "
                "closed, cancelled, expired, failed",
            },
            {"field": "format", "message": "format 'xlsx' is not csv or jsonl"},
        ],
    )


async def test_a_range_ending_before_it_starts_is_422(
    server: Server, http: aiohttp.ClientSession
) -> None:
    url = f"{server.url}/v1/audit/export?since=2026-12-02&until=2026-12-01"
    status, body = await relay(http, "GET", url)
    message = "until '2026-12-01' is not after since '2026-12-02'"
    assert (status, body["error"]["code"], body["error"]["message"]) == (
        422,
        "INVALID_RANGE",
        message,
    )
