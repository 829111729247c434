"""Where offline mode listens: the playground's address from `SLACK_QUESTIONS_PLAYGROUND`,
and what the banner says about reaching it from elsewhere."""

from __future__ import annotations

import pytest

from bot.offline.listen import Address, exposure_notes, playground_address
from bot.parts import StartupError


def test_without_the_variable_the_playground_takes_any_free_port_on_loopback() -> None:
    assert playground_address({}) == Address("127.0.0.1", 0)


@pytest.mark.parametrize(
    ("value", "address"),
    [
        ("0.0.0.0:8080", Address("0.0.0.0", 8080)),
        ("127.0.0.1:9000", Address("127.0.0.1", 9000)),
        ("[::]:8080", Address("::", 8080)),
        ("localhost:0", Address("localhost", 0)),
    ],
)
def test_the_variable_names_the_playgrounds_host_and_port(value: str, address: Address) -> None:
    assert playground_address({"SLACK_QUESTIONS_PLAYGROUND": value}) == address


@pytest.mark.parametrize(
    ("value", "problem"),
    [
        ("8080", "it names no host"),
        ("0.0.0.0:http", "its port 'http' is not a number from 0 to 65535"),
        ("0.0.0.0:70000", "its port '70000' is not a number from 0 to 65535"),
        ("example.com:8080", "'example.com' is not an IP address or localhost"),
    ],
)
def test_a_bad_playground_address_says_what_is_wrong(value: str, problem: str) -> None:
    with pytest.raises(StartupError) as raised:
        playground_address({"SLACK_QUESTIONS_PLAYGROUND": value})
    assert str(raised.value) == (
        "SLACK_QUESTIONS_PLAYGROUND must be HOST:PORT, e.g. 0.0.0.0:8080 to open the "
        f"playground beyond loopback, not {value!r}: {problem}"
    )


def test_on_loopback_the_banner_says_nothing_more() -> None:
    assert exposure_notes("127.0.0.1", Address("127.0.0.1", 0)) == []


def test_a_host_beyond_loopback_is_named_as_unused_with_how_to_publish_the_playground() -> None:
    assert exposure_notes("0.0.0.0", Address("127.0.0.1", 0)) == [
        "HOST=0.0.0.0 is not used offline: everything listens on 127.0.0.1 only. To open the "
        "playground from outside (e.g. from this container's host), set "
        "SLACK_QUESTIONS_PLAYGROUND=0.0.0.0:8080 and publish that port: docker run -it "
        "-p 127.0.0.1:8080:8080 -e SLACK_QUESTIONS_PLAYGROUND=0.0.0.0:8080 slack-questions, "
        "then open the Playground address it prints; its token is required."
    ]


def test_without_a_playground_the_banner_only_says_the_host_is_unused() -> None:
    assert exposure_notes("0.0.0.0", None) == [
        "HOST=0.0.0.0 is not used offline: everything listens on 127.0.0.1 only."
    ]


def test_a_playground_beyond_loopback_is_named_with_who_can_act() -> None:
    assert exposure_notes("0.0.0.0", Address("0.0.0.0", 8080)) == [
        "The playground listens on 0.0.0.0:8080 (SLACK_QUESTIONS_PLAYGROUND), beyond "
        "loopback: whoever reaches that port with the address above, token included, acts as "
        "anyone in the workspace. Open it as localhost or 127.0.0.1 through a published or "
        "forwarded port; other host names are refused."
    ]
