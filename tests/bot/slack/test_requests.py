"""Checks before Bolt: the signature on the raw bytes, then a payload Bolt can route."""

from __future__ import annotations

import time
from urllib.parse import quote

import pytest
from multidict import CIMultiDict
from slack_sdk.signature import SignatureVerifier

from bot.slack.requests import (
    Refused,
    bolt_request_of,
    check_headers,
    check_length,
    check_payload,
    verified_text,
)

SECRET = "0123456789abcdef0123456789abcdef"
VERIFIER = SignatureVerifier(SECRET)


def headers(body: str, timestamp: str | None = None) -> CIMultiDict[str]:
    stamp = timestamp or str(int(time.time()))
    signature = VERIFIER.generate_signature(timestamp=stamp, body=body)
    assert signature is not None
    return CIMultiDict({"x-slack-request-timestamp": stamp, "X-SLACK-SIGNATURE": signature})


def refusal(error: pytest.ExceptionInfo[Refused]) -> tuple[int, str]:
    return error.value.status, error.value.reason


def test_a_signed_body_is_returned_as_text_whatever_the_header_case() -> None:
    assert verified_text(b"a=b", headers("a=b"), VERIFIER) == "a=b"


def test_a_decimal_timestamp_is_refused_before_the_verifier_reads_it() -> None:
    with pytest.raises(Refused) as refused:
        verified_text(b"a=b", headers("a=b", timestamp="1700000000.5"), VERIFIER)
    assert refusal(refused) == (
        401,
        "X-Slack-Request-Timestamp is not whole seconds: '1700000000.5'",
    )


def test_a_body_that_is_not_utf8_is_refused_as_unsigned() -> None:
    with pytest.raises(Refused) as refused:
        verified_text(b"\xff", headers("x"), VERIFIER)
    assert refusal(refused) == (401, "the body is not UTF-8, so Slack did not sign it")


def test_a_click_without_actions_is_refused_naming_why() -> None:
    with pytest.raises(Refused) as refused:
        check_payload('{"type": "block_actions", "actions": []}', "application/json")
    assert refusal(refused) == (
        400,
        "malformed payload: payload: Value error, block_actions without actions",
    )


def test_a_payload_field_nested_too_deeply_is_refused() -> None:
    with pytest.raises(Refused) as refused:
        check_payload("payload=" + "[" * 100_000, "application/x-www-form-urlencoded")
    assert refusal(refused) == (400, "the payload field is nested too deeply")


def test_a_well_formed_click_becomes_bolts_request() -> None:
    body = (
        '{"type": "block_actions", "actions": [{"action_id": "sq_pick.0"}], "user": {"id": "U1"}}'
    )
    request = bolt_request_of(body, "", {"content-type": ["application/json"]})
    assert request.body["actions"] == [{"action_id": "sq_pick.0"}]


def test_a_well_formed_click_is_parsed_once_by_bolt(monkeypatch: pytest.MonkeyPatch) -> None:
    def parsed_again(text: str, content_type: str | None) -> object:
        raise AssertionError("the body was parsed a second time")

    monkeypatch.setattr("bot.slack.requests._parse", parsed_again)
    body = "payload=" + quote('{"type": "block_actions", "actions": [{"action_id": "sq_pick.0"}]}')
    request = bolt_request_of(body, "", {"content-type": ["application/x-www-form-urlencoded"]})
    assert request.body["actions"] == [{"action_id": "sq_pick.0"}]


def test_a_click_without_actions_is_refused_by_bolt_request_of_as_by_check_payload() -> None:
    with pytest.raises(Refused) as refused:
        bolt_request_of(
            '{"type": "block_actions", "actions": []}', "", {"content-type": ["application/json"]}
        )
    assert refusal(refused) == (
        400,
        "malformed payload: payload: Value error, block_actions without actions",
    )


@pytest.mark.parametrize(
    ("body", "reason"),
    [
        ("payload=null", "the payload field is JSON but not an object"),
        ("payload=%5B1%5D", "the payload field is JSON but not an object"),
        (
            "payload=%7Bnope",
            "the payload field is not JSON (Expecting property name enclosed in"
            " double quotes: line 1 column 2 (char 1))",
        ),
    ],
)
def test_a_payload_bolt_cannot_read_is_refused_saying_what_is_wrong(body: str, reason: str) -> None:
    with pytest.raises(Refused) as refused:
        bolt_request_of(body, "", {"content-type": ["application/x-www-form-urlencoded"]})
    assert refusal(refused) == (400, reason)


def test_a_slash_command_form_has_no_envelope_to_check() -> None:
    body = "command=%2Fagent-questions&text=actions&user_id=U1"
    request = bolt_request_of(body, "", {"content-type": ["application/x-www-form-urlencoded"]})
    assert request.body["command"] == "/agent-questions"


NOW = 1_700_000_000.0


@pytest.mark.parametrize("age", [300, -300, 0])
def test_headers_with_a_timestamp_within_5_minutes_either_way_pass_before_the_body(
    age: int,
) -> None:
    check_headers(headers("", timestamp=str(int(NOW) - age)), NOW)


@pytest.mark.parametrize("age", [301, -301])
def test_headers_with_a_timestamp_over_5_minutes_either_way_are_refused(age: int) -> None:
    with pytest.raises(Refused) as refused:
        check_headers(headers("", timestamp=str(int(NOW) - age)), NOW)
    assert refusal(refused) == (401, "X-Slack-Request-Timestamp is over 5 minutes from now")


def test_headers_with_a_timestamp_of_5000_digits_are_refused_before_it_is_read() -> None:
    with pytest.raises(Refused) as refused:
        check_headers(headers("", timestamp="9" * 5000), NOW)
    assert refusal(refused) == (
        401,
        "X-Slack-Request-Timestamp is not whole seconds: '99999999999999999999'",
    )


def test_a_length_at_the_limit_passes_and_one_byte_over_is_refused() -> None:
    check_length(100, 100)
    check_length(None, 100)  # chunked: held to the limit while it is read
    with pytest.raises(Refused) as refused:
        check_length(101, 100)
    assert refusal(refused) == (413, "the body is 101 bytes, over the 100 this endpoint takes")
