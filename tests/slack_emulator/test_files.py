"""files.getUploadURLExternal, the upload URL and files.completeUploadExternal, as slack_sdk
drives them, and their argument checks."""

from __future__ import annotations

import aiohttp
import pytest
from slack_sdk.errors import SlackApiError
from slack_sdk.web.async_client import AsyncWebClient

from slack_emulator import SlackEmulator

from .conftest import ALICE, LOBBY, QUESTIONS


async def test_slack_sdks_upload_v2_shares_the_file_in_a_users_dm(
    emu: SlackEmulator, client: AsyncWebClient
) -> None:
    response = await client.files_upload_v2(
        filename="asks.csv", content=b"a,b\r\n1,2\r\n", channels=[ALICE], initial_comment="Here"
    )
    [shared] = emu.files()
    dm = emu.workspace.im_channel(ALICE).id
    assert (shared.filename, shared.title, shared.content) == (
        "asks.csv",
        "asks.csv",
        b"a,b\r\n1,2\r\n",
    )
    assert (shared.channels, shared.comment) == ([dm], "Here")
    assert response["files"] == [{"id": shared.id, "title": "asks.csv", "name": "asks.csv"}]
    [message] = emu.workspace.channel_messages(dm)
    assert (message.ts, message.text) == (shared.shared_ts, "Here")


async def test_the_upload_url_answers_as_slacks_upload_service(
    emu: SlackEmulator, client: AsyncWebClient
) -> None:
    ticket = await client.files_getUploadURLExternal(filename="a.txt", length=3)
    async with (
        aiohttp.ClientSession() as session,
        session.post(ticket["upload_url"], data=b"abc") as response,
    ):
        assert (response.status, await response.text()) == (200, "OK - 3")
    async with (
        aiohttp.ClientSession() as session,
        session.post(f"{emu.url}/upload/F404", data=b"abc") as response,
    ):
        assert response.status == 404


async def error_of(call: object) -> tuple[str, list[str]]:
    with pytest.raises(SlackApiError) as caught:
        await call  # type: ignore[misc]
    data = caught.value.response.data
    assert isinstance(data, dict)
    return data["error"], data.get("response_metadata", {}).get("messages", [])


@pytest.mark.parametrize(
    ("args", "error"),
    [
        ({"length": "3"}, ("invalid_arguments", ["[ERROR] missing required field: filename"])),
        ({"filename": "a"}, ("invalid_arguments", ["[ERROR] missing required field: length"])),
        ({"filename": "a", "length": "0"}, ("missing_argument", [])),
        ({"filename": "a", "length": "x"}, ("invalid_arguments", ["invalid `length`"])),
    ],
)
async def test_a_ticket_needs_a_filename_and_a_length(
    client: AsyncWebClient, args: dict[str, str], error: tuple[str, list[str]]
) -> None:
    assert await error_of(client.api_call("files.getUploadURLExternal", params=args)) == error


async def test_completing_a_file_whose_bytes_never_arrived_is_file_not_found(
    client: AsyncWebClient,
) -> None:
    ticket = await client.files_getUploadURLExternal(filename="a.txt", length=3)
    completing = client.files_completeUploadExternal(files=[{"id": ticket["file_id"]}])
    assert await error_of(completing) == ("file_not_found", [])


async def test_completing_needs_the_files(client: AsyncWebClient) -> None:
    missing = client.api_call("files.completeUploadExternal", params={})
    assert await error_of(missing) == (
        "invalid_arguments",
        ["[ERROR] missing required field: files"],
    )


async def test_a_file_is_shared_only_where_the_bot_may_post(
    emu: SlackEmulator, client: AsyncWebClient
) -> None:
    refused = client.files_upload_v2(filename="a.txt", content=b"abc", channel=LOBBY)
    assert await error_of(refused) == ("not_in_channel", [])
    await client.files_upload_v2(filename="b.txt", content=b"abc", channel=QUESTIONS)
    assert [(f.filename, f.channels) for f in emu.files()] == [("b.txt", [QUESTIONS])]
