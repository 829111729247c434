"""`RelayWatch` on its own, over sockets a test controls: outages, refused upgrades and frames
it cannot read."""

from __future__ import annotations

import asyncio

import pytest

from provider import ErrorCode, UserQuestionError
from provider.relay_watch import NoWatch, RelayWatch, Socket, SocketDropped, UpgradeRefused


def watch_over(*failures: Exception, max_outage: float = 0.05) -> tuple[RelayWatch, list[str]]:
    """A watch whose every connection attempt fails: with `failures` in turn, then the last."""
    attempts: list[str] = []

    async def connect() -> Socket:
        failure = failures[min(len(attempts), len(failures) - 1)]
        attempts.append(type(failure).__name__)
        raise failure

    watch = RelayWatch(
        connect,
        base_url="http://relay.test",
        max_outage=max_outage,
        first_retry=0.01,
        longest_retry=0.01,
    )
    return watch, attempts


async def test_a_relay_unreachable_past_max_outage_fails_the_wait_as_ask_failed() -> None:
    watch, attempts = watch_over(SocketDropped("refused"))
    with pytest.raises(UserQuestionError) as caught:
        await watch.settled("a1")
    await watch.close()
    assert (caught.value.code, caught.value.message) == (
        ErrorCode.ASK_FAILED,
        "the relay at http://relay.test was unreachable for 0.05 s",
    )
    assert len(attempts) >= 2


async def test_a_connect_that_fails_unexpectedly_fails_the_wait_instead_of_leaving_it() -> None:
    # Not a drop nor a refusal (a bug, a closed session): the watch is gone, and its waits
    # waited for ever on it.
    watch, attempts = watch_over(RuntimeError("Session is closed"), max_outage=60)
    with pytest.raises(UserQuestionError) as caught:
        async with asyncio.timeout(10):
            await watch.settled("a1")
    await watch.close()
    assert (caught.value.code, caught.value.message) == (
        ErrorCode.ASK_FAILED,
        "the relay watch at http://relay.test stopped: RuntimeError: Session is closed",
    )
    assert attempts == ["RuntimeError"]


async def test_a_seam_error_from_connect_ends_the_wait_with_that_error() -> None:
    # The provider's connect refuses once the provider is closed.
    closed = UserQuestionError(ErrorCode.ASK_FAILED, "the RelayProvider is closed")
    watch, _ = watch_over(closed, max_outage=60)
    with pytest.raises(UserQuestionError) as caught:
        async with asyncio.timeout(10):
            await watch.settled("a1")
    await watch.close()  # and close does not raise what the runner died of
    assert (caught.value.code, caught.value.message) == (
        ErrorCode.ASK_FAILED,
        "the RelayProvider is closed",
    )


async def test_a_404_upgrade_hands_every_wait_to_get_and_is_not_tried_again() -> None:
    watch, attempts = watch_over(UpgradeRefused(503), UpgradeRefused(404), max_outage=60)
    with pytest.raises(NoWatch):
        await watch.settled("a1")
    with pytest.raises(NoWatch):
        await watch.settled("a2")
    await watch.close()
    assert attempts == ["UpgradeRefused", "UpgradeRefused"]  # 503 retried, 404 remembered


async def test_a_refused_upgrade_other_than_404_hands_the_wait_to_get_and_tries_again_later() -> (
    None
):
    watch, attempts = watch_over(UpgradeRefused(401), max_outage=60)
    with pytest.raises(NoWatch):
        await watch.settled("a1")
    with pytest.raises(NoWatch):
        await watch.settled("a2")
    await watch.close()
    assert attempts == ["UpgradeRefused", "UpgradeRefused"]  # the GET names the refusal


class OneFrame:
    """A socket that answers the first `WatchAsks` frame with `reply`, then stays open."""

    def __init__(self, reply: str) -> None:
        self._reply = reply
        self._replies: asyncio.Queue[str | None] = asyncio.Queue()
        self.sent: list[str] = []

    async def send(self, text: str) -> None:
        if not self.sent:
            self._replies.put_nowait(self._reply)
        self.sent.append(text)

    async def receive(self) -> str | None:
        return await self._replies.get()

    async def close(self) -> None:
        self._replies.put_nowait(None)


async def test_a_frame_this_client_cannot_read_hands_its_ask_to_get_instead_of_waiting() -> None:
    # A newer relay's frame (a state this client does not know): the wait must not go on
    # for a frame that will never come again; the GET says what it cannot read.
    socket = OneFrame('{"id": "a1", "ask": {"id": "a1", "state": "snoozed"}}')

    async def connect() -> Socket:
        return socket

    watch = RelayWatch(
        connect, base_url="http://relay.test", max_outage=60, first_retry=0.01, longest_retry=0.01
    )
    with pytest.raises(NoWatch):
        async with asyncio.timeout(10):
            await watch.settled("a1")
    await watch.close()
    assert socket.sent == ['{"watch":["a1"]}']
