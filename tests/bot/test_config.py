"""Start-up configuration: modes, and a clear message for everything wrong."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Final

import pytest

from bot import SlackSettings
from bot.config import ConfigError, Mode, load_config, parse_args
from bot.slack.responders import ANYONE

SECRET = "0123456789abcdef0123456789abcdef"
HTTP = {
    "SLACK_BOT_TOKEN": "xoxb-1",
    "SLACK_SIGNING_SECRET": SECRET,
    "SLACK_QUESTIONS_CHANNEL": "C0QUESTION",
    "SLACK_QUESTIONS_RESPONDERS": "*",
}


def problems(env: dict[str, str], *argv: str) -> str:
    with pytest.raises(ConfigError) as caught:
        load_config(env, parse_args(list(argv)))
    return str(caught.value)


def test_no_credentials_is_offline_mode() -> None:
    assert load_config({}, parse_args([])).mode is Mode.OFFLINE


def test_offline_mode_makes_fresh_credentials_for_the_emulator() -> None:
    first, second = (load_config({}, parse_args([])).slack for _ in range(2))
    assert first.bot_token.startswith("xoxb-offline-")
    assert re.fullmatch(r"[0-9a-f]{32}", first.signing_secret)
    assert (first.bot_token, first.signing_secret) != (second.bot_token, second.signing_secret)


def test_the_slack_settings_are_the_providers_own_with_its_defaults() -> None:
    config = load_config(HTTP, parse_args([]))
    assert config.slack == SlackSettings(
        bot_token="xoxb-1", signing_secret=SECRET, channel="C0QUESTION", responders=ANYONE
    )


def test_socket_mode_has_no_signing_secret() -> None:
    env = {**HTTP, "SLACK_APP_TOKEN": "xapp-1"}
    del env["SLACK_SIGNING_SECRET"]
    assert load_config(env, parse_args([])).slack.signing_secret == ""


def test_no_secret_shows_in_the_configs_repr() -> None:
    env = {
        **HTTP,
        "SLACK_QUESTIONS_RELAY_TOKEN": "relay-token-0123456789",
        "SLACK_APP_TOKEN": "xapp-1",
    }
    shown = repr(load_config(env, parse_args([])))
    for secret in ("xoxb-1", SECRET, "relay-token-0123456789", "xapp-1"):
        assert secret not in shown
    assert "C0QUESTION" in shown


def test_a_review_policy_file_reaches_the_slack_settings(tmp_path: Path) -> None:
    policy = tmp_path / "review.toml"
    policy.write_text("[default]\napprovals = 2\n")
    env = {**HTTP, "SLACK_QUESTIONS_REVIEW_POLICY": str(policy)}
    assert load_config(env, parse_args([])).slack.review.default.approvals == 2


def test_a_bot_token_and_signing_secret_is_http_mode() -> None:
    config = load_config(HTTP, parse_args([]))
    assert (config.mode, config.slack.channel, config.port) == (Mode.HTTP, "C0QUESTION", 3000)


def test_an_app_token_is_socket_mode_and_needs_no_signing_secret() -> None:
    env = {**HTTP, "SLACK_APP_TOKEN": "xapp-1"}
    del env["SLACK_SIGNING_SECRET"]
    assert load_config(env, parse_args([])).mode is Mode.SOCKET


def test_flags_override_the_environment() -> None:
    config = load_config(
        {**HTTP, "PORT": "4000"}, parse_args(["--port", "5000", "--host", "0.0.0.0"])
    )
    assert (config.host, config.port) == ("0.0.0.0", 5000)


def test_responders_accept_users_and_groups_separated_by_commas_or_spaces() -> None:
    config = load_config({**HTTP, "SLACK_QUESTIONS_RESPONDERS": "U1AB, S2CD W3EF"}, parse_args([]))
    assert config.slack.responders == ("U1AB", "S2CD", "W3EF")


NO_RESPONDERS: Final = (
    "SLACK_QUESTIONS_RESPONDERS is missing: say who may answer the agents' questions, "
    "as user ids (U…/W…) and user-group ids (S…), comma separated, or * for anyone in "
    "the channel on purpose (in a Slack Connect channel that includes other "
    "organisations' people); without it every member could approve what an agent does"
)


@pytest.mark.parametrize("value", [None, "", " , "])
def test_connected_to_slack_without_responders_the_service_refuses_to_start(
    value: str | None,
) -> None:
    env = {k: v for k, v in HTTP.items() if k != "SLACK_QUESTIONS_RESPONDERS"}
    if value is not None:
        env["SLACK_QUESTIONS_RESPONDERS"] = value
    assert problems(env) == f"cannot start:\n  - {NO_RESPONDERS}"


def test_socket_mode_without_responders_is_refused_too() -> None:
    env = {
        "SLACK_BOT_TOKEN": "xoxb-1",
        "SLACK_APP_TOKEN": "xapp-1",
        "SLACK_QUESTIONS_CHANNEL": "C0Q1",
    }
    assert problems(env) == f"cannot start:\n  - {NO_RESPONDERS}"


def test_a_star_says_anyone_in_the_channel_may_answer() -> None:
    assert load_config(HTTP, parse_args([])).slack.responders == ANYONE


def test_a_star_among_ids_is_refused() -> None:
    env = {**HTTP, "SLACK_QUESTIONS_RESPONDERS": "U1AB,*"}
    assert problems(env) == (
        "cannot start:\n  - SLACK_QUESTIONS_RESPONDERS: * (anyone in the channel) stands "
        "alone, not among ids: set either * or the ids"
    )


def test_offline_without_responders_starts_and_leaves_them_to_offline_mode() -> None:
    assert load_config({}, parse_args([])).slack.responders == ()


def test_the_api_url_gets_its_trailing_slash() -> None:
    config = load_config({**HTTP, "SLACK_API_URL": "http://127.0.0.1:9/api"}, parse_args([]))
    assert config.slack.api_url == "http://127.0.0.1:9/api/"


def test_a_signing_secret_without_a_bot_token_is_refused() -> None:
    assert "SLACK_SIGNING_SECRET is set but SLACK_BOT_TOKEN is missing" in problems(
        {"SLACK_SIGNING_SECRET": SECRET}
    )


def test_http_mode_without_a_signing_secret_is_refused() -> None:
    env = {k: v for k, v in HTTP.items() if k != "SLACK_SIGNING_SECRET"}
    assert "SLACK_SIGNING_SECRET is missing: HTTP mode needs it" in problems(env)


def test_a_user_token_is_not_a_bot_token() -> None:
    assert "SLACK_BOT_TOKEN must start with 'xoxb-' (it starts with 'xoxp-')" in problems(
        {**HTTP, "SLACK_BOT_TOKEN": "xoxp-1"}
    )


def test_a_missing_channel_is_refused_online() -> None:
    env = {k: v for k, v in HTTP.items() if k != "SLACK_QUESTIONS_CHANNEL"}
    assert "SLACK_QUESTIONS_CHANNEL is missing" in problems(env)


def test_a_channel_name_is_not_a_channel_id() -> None:
    assert "must be a channel id like C0123456789, not '#general'" in problems(
        {**HTTP, "SLACK_QUESTIONS_CHANNEL": "#general"}
    )


def test_every_problem_is_reported_at_once() -> None:
    text = problems(
        {
            "SLACK_BOT_TOKEN": "xoxp-1",
            "SLACK_SIGNING_SECRET": "short",
            "SLACK_QUESTIONS_RESPONDERS": "alice",
            "SLACK_QUESTIONS_RELAY_TOKEN": "tiny",
        }
    )
    assert text.count("\n  - ") == 5
    for fragment in (
        "SLACK_BOT_TOKEN must start",
        "SLACK_SIGNING_SECRET must be",
        "SLACK_QUESTIONS_CHANNEL is missing",
        "SLACK_QUESTIONS_RESPONDERS must list",
        "SLACK_QUESTIONS_RELAY_TOKEN must be at least 16",
    ):
        assert fragment in text


def test_a_port_out_of_range_is_refused() -> None:
    assert "--port must be between 0 and 65535, not 70000" in problems(HTTP, "--port", "70000")


def test_offline_serves_the_playground_unless_no_browser_is_given() -> None:
    assert (parse_args([]).no_browser, parse_args(["--no-browser"]).no_browser) == (False, True)


# --- SLACK_QUESTIONS_DB: SQLite or PostgreSQL ----------------------------------------------


def test_a_path_keeps_the_sqlite_store() -> None:
    config = load_config({**HTTP, "SLACK_QUESTIONS_DB": "/var/lib/asks.db"}, parse_args([]))
    assert (config.db_path, config.postgres_url) == (Path("/var/lib/asks.db"), None)


def test_a_sqlite_prefix_keeps_the_sqlite_store_at_the_path_after_it() -> None:
    config = load_config({**HTTP, "SLACK_QUESTIONS_DB": "sqlite:asks.db"}, parse_args([]))
    assert (config.db_path, config.postgres_url) == (Path("asks.db"), None)


def test_a_postgresql_url_selects_the_postgresql_store() -> None:
    url = "postgresql://bot:pw@db.internal:5432/questions"
    config = load_config({**HTTP, "SLACK_QUESTIONS_DB": url}, parse_args([]))
    assert config.postgres_url is not None
    assert config.postgres_url.get_secret_value() == url


def test_a_postgres_url_selects_the_postgresql_store_too() -> None:
    url = "postgres://bot@db.internal/questions"
    config = load_config({**HTTP}, parse_args(["--db", url]))
    assert config.postgres_url is not None
    assert config.postgres_url.get_secret_value() == url


def test_the_postgresql_password_does_not_show_in_the_configs_repr() -> None:
    url = "postgresql://bot:hunter2hunter2@db.internal/questions"
    config = load_config({**HTTP, "SLACK_QUESTIONS_DB": url}, parse_args([]))
    assert "hunter2hunter2" not in repr(config)


def test_another_url_scheme_is_refused_naming_it() -> None:
    with pytest.raises(ConfigError) as refused:
        load_config({**HTTP, "SLACK_QUESTIONS_DB": "mysql://db/questions"}, parse_args([]))
    assert str(refused.value) == (
        "cannot start:\n  - SLACK_QUESTIONS_DB must be a SQLite file or a postgresql:// URL, "
        "not a mysql:// URL"
    )


def test_the_header_and_body_timeouts_default_to_10_and_30_seconds() -> None:
    config = load_config(HTTP, parse_args([]))
    assert (config.header_timeout_s, config.body_timeout_s) == (10.0, 30.0)


def test_the_header_and_body_timeouts_take_seconds_with_a_fraction() -> None:
    env = {**HTTP, "SLACK_QUESTIONS_HEADER_TIMEOUT": "2.5", "SLACK_QUESTIONS_BODY_TIMEOUT": "60"}
    config = load_config(env, parse_args([]))
    assert (config.header_timeout_s, config.body_timeout_s) == (2.5, 60.0)


@pytest.mark.parametrize("value", ["0", "-1", "ten", "nan", "inf", "3601"])
def test_a_timeout_that_is_not_a_positive_number_of_seconds_is_refused(value: str) -> None:
    env = {**HTTP, "SLACK_QUESTIONS_HEADER_TIMEOUT": value, "SLACK_QUESTIONS_BODY_TIMEOUT": value}
    assert problems(env) == (
        "cannot start:\n"
        "  - SLACK_QUESTIONS_HEADER_TIMEOUT must be a number of seconds above 0 and at most "
        f"3600, not {value!r}\n"
        "  - SLACK_QUESTIONS_BODY_TIMEOUT must be a number of seconds above 0 and at most "
        f"3600, not {value!r}"
    )


def test_further_relay_channels_are_read_as_a_list_without_the_questions_channel() -> None:
    env = {
        **HTTP,
        "SLACK_QUESTIONS_CHANNELS": f"C0DEPLOYS, C0OPS {HTTP['SLACK_QUESTIONS_CHANNEL']}",
    }
    assert load_config(env, parse_args([])).channels == ("C0DEPLOYS", "C0OPS")


def test_a_further_relay_channel_that_is_not_a_channel_id_is_refused() -> None:
    text = problems({**HTTP, "SLACK_QUESTIONS_CHANNELS": "C0DEPLOYS,U0ALICE"})
    assert "SLACK_QUESTIONS_CHANNELS must list channel ids like C0123456789, not 'U0ALICE'" in text


def test_the_services_cap_on_held_waits_defaults_to_1000_and_must_be_a_count() -> None:
    assert load_config(HTTP, parse_args([])).max_waits == 1000
    assert load_config({**HTTP, "SLACK_QUESTIONS_MAX_WAITS": "5"}, parse_args([])).max_waits == 5
    assert "SLACK_QUESTIONS_MAX_WAITS must be a whole number" in problems(
        {**HTTP, "SLACK_QUESTIONS_MAX_WAITS": "0"}
    )


def test_settled_asks_are_kept_90_days_by_default() -> None:
    assert load_config(HTTP, parse_args([])).retention_s == 90 * 86400


@pytest.mark.parametrize(
    ("value", "seconds"),
    [("90d", 90 * 86400), ("12h", 12 * 3600), ("30m", 1800), ("1.5D", 1.5 * 86400)],
)
def test_the_retention_takes_a_duration_with_its_unit(value: str, seconds: float) -> None:
    env = {**HTTP, "SLACK_QUESTIONS_RETENTION": value}
    assert load_config(env, parse_args([])).retention_s == seconds


def test_a_retention_of_forever_never_purges() -> None:
    env = {**HTTP, "SLACK_QUESTIONS_RETENTION": "Forever"}
    assert load_config(env, parse_args([])).retention_s is None


@pytest.mark.parametrize("value", ["0", "0d", "90", "-1d", "ten days", "90w"])
def test_a_retention_that_is_not_a_positive_duration_is_refused(value: str) -> None:
    assert problems({**HTTP, "SLACK_QUESTIONS_RETENTION": value}) == (
        "cannot start:\n"
        "  - SLACK_QUESTIONS_RETENTION must be how long settled asks are kept, with its unit "
        f"(90d, 12h, 30m), or forever to never purge them, not {value!r}"
    )


def test_an_audit_key_shorter_than_32_characters_is_refused() -> None:
    assert "SLACK_QUESTIONS_AUDIT_KEY must be at least 32 characters" in problems(
        {"SLACK_QUESTIONS_AUDIT_KEY": "too-short"}
    )


def test_the_audit_key_is_kept_as_a_secret() -> None:
    config = load_config({"SLACK_QUESTIONS_AUDIT_KEY": "k" * 32}, parse_args([]))
    assert config.audit_key is not None
    assert config.audit_key.get_secret_value() == "k" * 32
    assert "k" * 32 not in repr(config)


def test_the_audit_channel_and_period_are_read() -> None:
    env = {"SLACK_QUESTIONS_AUDIT_CHANNEL": "C0AUDIT", "SLACK_QUESTIONS_AUDIT_EVERY": "60"}
    config = load_config(env, parse_args([]))
    assert (config.audit_channel, config.audit_every_s) == ("C0AUDIT", 60.0)


def test_an_audit_channel_that_is_no_channel_id_is_refused() -> None:
    assert "SLACK_QUESTIONS_AUDIT_CHANNEL must be a channel id (C…), not '#audit'" in problems(
        {"SLACK_QUESTIONS_AUDIT_CHANNEL": "#audit"}
    )
