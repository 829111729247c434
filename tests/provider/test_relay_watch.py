"""`RelayWatch` on its own, over sockets a test controls: outages and refused upgrades."""

from __future__ import annotations

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
