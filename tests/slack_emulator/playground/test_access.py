"""Who may use the playground: only the browser holding the address it printed. Every request
needs the per-run token in that address, a Host naming the bound address or localhost (no DNS
rebinding) and, when an Origin is sent, the playground's own; anything else is refused with
403 saying what was wrong, and changes nothing in the emulated workspace."""

from __future__ import annotations

from collections.abc import AsyncIterator
from urllib.parse import urlsplit

import aiohttp
import pytest
import pytest_asyncio

from slack_emulator import SlackEmulator
from slack_emulator.playground import Playground
from tests.bot.harness import ALICE, CHANNEL

pytestmark = pytest.mark.asyncio(loop_scope="session")

# An act that changes the workspace when it is performed: Alice says hello in the channel.
HELLO = {"user": ALICE, "do": "post", "channel": CHANNEL, "text": "hello"}
EVERY_PATH = ("", "events", "act", "static/playground.js", "static/playground.css")


@pytest_asyncio.fixture(loop_scope="session")
async def served(emu: SlackEmulator) -> AsyncIterator[Playground]:
    playground = Playground(emu, person=ALICE)
    await playground.start()
    try:
        yield playground
    finally:
        await playground.close()


@pytest_asyncio.fixture(loop_scope="session")
async def http() -> AsyncIterator[aiohttp.ClientSession]:
    async with aiohttp.ClientSession() as session:
        yield session


def origin(playground: Playground) -> str:
    """`http://host:port`, the playground's origin, with no path (so no token)."""
    parts = urlsplit(playground.url)
    return f"{parts.scheme}://{parts.netloc}"


def token(playground: Playground) -> str:
    """The token the playground's printed address carries."""
    return urlsplit(playground.url).path.strip("/")


def said_hello(emu: SlackEmulator) -> bool:
    return any(m.text == "hello" for m in emu.workspace.channel_messages(CHANNEL))


async def request(
    http: aiohttp.ClientSession, method: str, url: str, **kwargs: object
) -> tuple[int, str]:
    """The status and body; an answer that never ends (the event stream) fails in 10 s."""
    timeout = aiohttp.ClientTimeout(total=10)
    async with http.request(
        method,
        url,
        allow_redirects=False,
        timeout=timeout,
        **kwargs,  # type: ignore[arg-type]
    ) as response:
        return response.status, await response.text()


async def test_the_printed_address_carries_a_fresh_random_token_in_its_path(
    emu: SlackEmulator, served: Playground
) -> None:
    other = Playground(emu, person=ALICE)
    await other.start()
    try:
        assert len(token(served)) >= 32
        assert token(other) != token(served)
        assert served.url == f"{origin(served)}/{token(served)}/"
    finally:
        await other.close()


@pytest.mark.parametrize("path", EVERY_PATH)
async def test_a_request_without_the_token_is_refused_with_403(
    served: Playground, http: aiohttp.ClientSession, path: str
) -> None:
    status, body = await request(http, "GET", f"{origin(served)}/{path}")
    assert (status, body) == (
        403,
        "this address has no playground token: open the Playground address "
        "`python -m bot` printed (it holds the token)\n",
    )


async def test_an_act_without_the_token_is_refused_and_posts_nothing(
    emu: SlackEmulator, served: Playground, http: aiohttp.ClientSession
) -> None:
    version = emu.version
    status, _ = await request(http, "POST", f"{origin(served)}/act", json=HELLO)
    assert status == 403
    assert (emu.version, said_hello(emu)) == (version, False)


@pytest.mark.parametrize("path", EVERY_PATH)
async def test_a_request_with_a_wrong_token_is_refused_with_403(
    served: Playground, http: aiohttp.ClientSession, path: str
) -> None:
    wrong = "x" * len(token(served))
    status, body = await request(http, "GET", f"{origin(served)}/{wrong}/{path}")
    assert (status, body) == (
        403,
        "wrong playground token: open the Playground address `python -m bot` printed\n",
    )


async def test_an_act_with_a_wrong_token_is_refused_and_posts_nothing(
    emu: SlackEmulator, served: Playground, http: aiohttp.ClientSession
) -> None:
    version = emu.version
    wrong = token(served)[:-1] + ("A" if token(served)[-1] != "A" else "B")
    status, _ = await request(http, "POST", f"{origin(served)}/{wrong}/act", json=HELLO)
    assert status == 403
    assert (emu.version, said_hello(emu)) == (version, False)


async def test_an_act_from_a_foreign_origin_with_the_right_token_is_refused_and_posts_nothing(
    emu: SlackEmulator, served: Playground, http: aiohttp.ClientSession
) -> None:
    version = emu.version
    status, body = await request(
        http,
        "POST",
        f"{served.url}act",
        json=HELLO,
        headers={"Origin": "http://evil.example"},
    )
    assert (status, body) == (
        403,
        f"refused: Origin 'http://evil.example' is not this playground's ({origin(served)})\n",
    )
    assert (emu.version, said_hello(emu)) == (version, False)


async def test_a_page_load_from_a_foreign_origin_is_refused(
    served: Playground, http: aiohttp.ClientSession
) -> None:
    status, _ = await request(http, "GET", served.url, headers={"Origin": "null"})
    assert status == 403


async def test_a_foreign_host_with_the_right_token_is_refused_as_dns_rebinding(
    emu: SlackEmulator, served: Playground, http: aiohttp.ClientSession
) -> None:
    # A page on evil.example whose name was re-pointed at 127.0.0.1 reaches this server with
    # its own name as the Host (and as its Origin: same-origin for the browser).
    port = urlsplit(served.url).port
    version = emu.version
    status, body = await request(
        http,
        "POST",
        f"{served.url}act",
        json=HELLO,
        headers={"Host": f"evil.example:{port}", "Origin": f"http://evil.example:{port}"},
    )
    assert (status, body) == (
        403,
        f"refused: Host 'evil.example:{port}' is not this playground's address; "
        "open it as 127.0.0.1 or localhost\n",
    )
    assert (emu.version, said_hello(emu)) == (version, False)


async def test_a_request_with_no_host_is_refused(
    served: Playground, http: aiohttp.ClientSession
) -> None:
    status, _ = await request(http, "GET", served.url, headers={"Host": ""})
    assert status == 403


async def test_the_page_is_served_as_localhost_too(
    served: Playground, http: aiohttp.ClientSession
) -> None:
    port = urlsplit(served.url).port
    localhost = f"http://localhost:{port}"
    status, _ = await request(
        http,
        "GET",
        served.url,
        headers={"Host": f"localhost:{port}", "Origin": localhost},
    )
    assert status == 200


async def test_an_act_from_the_playgrounds_own_origin_is_performed(
    emu: SlackEmulator, served: Playground, http: aiohttp.ClientSession
) -> None:
    status, body = await request(
        http, "POST", f"{served.url}act", json=HELLO, headers={"Origin": origin(served)}
    )
    assert (status, said_hello(emu)) == (200, True), body


async def test_the_address_without_its_last_slash_redirects_to_the_page(
    served: Playground, http: aiohttp.ClientSession
) -> None:
    async with http.get(served.url.rstrip("/") + "?tab=home", allow_redirects=False) as got:
        assert (got.status, got.headers["Location"]) == (308, f"/{token(served)}/?tab=home")


async def test_the_page_tells_the_browser_to_send_no_referrer(
    served: Playground, http: aiohttp.ClientSession
) -> None:
    # The token is in the path: a link the person follows must not carry it away.
    async with http.get(served.url) as page:
        assert (page.status, page.headers["Referrer-Policy"]) == (200, "no-referrer")
