"""The composition root: `build` makes every collaborator once, without I/O; start-up checks
the token and, when it cannot start, leaves nothing open."""

from __future__ import annotations

import pytest
from aiohttp import web

from bot import SlackQuestionProvider, SlackSettings, StartupError
from bot.parts import Parts, build
from bot.store import MemoryStore
from slack_emulator import SlackEmulator

from .harness import SECRET, TOKEN


def settings(
    emu: SlackEmulator, *, token: str = TOKEN, api_url: str | None = None
) -> SlackSettings:
    return SlackSettings(bot_token=token, signing_secret=SECRET, api_url=api_url or emu.api_url)


async def test_build_calls_no_web_api_and_its_parts_close_cleanly(emu: SlackEmulator) -> None:
    parts = build(settings(emu))
    assert emu.calls == []
    await parts.close()
    assert parts.session.closed


async def test_the_provider_wraps_the_parts_it_started_from(emu: SlackEmulator) -> None:
    store = MemoryStore()
    parts = build(settings(emu), store=store)
    provider = await SlackQuestionProvider.from_parts(parts)
    try:
        assert provider.parts is parts
        assert (provider.app, provider.asks, provider.client) == (
            parts.app,
            parts.asks,
            parts.client,
        )
        assert provider.bot_user_id == emu.bot_user_id
        assert [call.method for call in emu.calls] == ["auth.test"]
    finally:
        await provider.close()
    assert parts.session.closed


async def test_a_rejected_token_fails_start_up_and_closes_the_parts(emu: SlackEmulator) -> None:
    parts = build(settings(emu, token="xoxb-revoked"))
    with pytest.raises(StartupError) as failed:
        await SlackQuestionProvider.from_parts(parts)
    assert str(failed.value) == (
        f"Slack rejected the bot token at {emu.api_url} (invalid_auth); check SLACK_BOT_TOKEN"
    )
    assert_closed(parts)


async def test_an_unreachable_api_fails_start_up_as_unreachable(emu: SlackEmulator) -> None:
    closed = "http://127.0.0.1:9/api/"  # the discard port: nothing listens there
    parts = build(settings(emu, api_url=closed), store=MemoryStore())
    with pytest.raises(StartupError) as failed:
        await SlackQuestionProvider.from_parts(parts)
    assert str(failed.value).startswith(f"cannot reach Slack's Web API at {closed} (")
    assert str(failed.value).endswith("); check SLACK_API_URL and the network")
    assert_closed(parts)


def assert_closed(parts: Parts) -> None:
    assert parts.session.closed
    assert len(parts.tasks) == 0


async def test_start_up_keeps_the_bots_team_and_app_ids_from_auth_test(
    emu: SlackEmulator,
) -> None:
    provider = await SlackQuestionProvider.from_parts(build(settings(emu), store=MemoryStore()))
    try:
        ours = {"type": "event_callback", "team_id": emu.team_id, "api_app_id": emu.app_id}
        assert provider.parts.origins.refused("message", ours) is False
        assert provider.parts.origins.refused("message", {**ours, "api_app_id": "A2"}) is True
    finally:
        await provider.close()


async def test_an_auth_test_that_names_no_app_id_fails_start_up(emu: SlackEmulator) -> None:
    # A Web API that answers auth.test as Slack's sample does, without the app's id.
    async def auth_test(request: web.Request) -> web.Response:
        return web.json_response({"ok": True, "team_id": "T1", "user_id": "U1", "bot_id": "B1"})

    app = web.Application()
    app.router.add_post("/api/auth.test", auth_test)
    runner = web.AppRunner(app)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    host, port = runner.addresses[0][:2]
    api_url = f"http://{host}:{port}/api/"
    try:
        parts = build(settings(emu, api_url=api_url), store=MemoryStore())
        with pytest.raises(StartupError) as failed:
            await SlackQuestionProvider.from_parts(parts)
    finally:
        await runner.cleanup()
    assert str(failed.value) == (
        f"auth.test did not name the bot's app_id at {api_url}; "
        "check that SLACK_BOT_TOKEN is a bot token (xoxb-)"
    )
    assert_closed(parts)
