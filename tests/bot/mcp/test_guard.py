"""Who `--http` lets in, as read from the environment: token, Host and Origin allowlists."""

from __future__ import annotations

import pytest
from pydantic import SecretStr

from bot.config import ConfigError
from bot.hosts import is_loopback
from bot.mcp.guard import HttpAccess, StaticTokenVerifier, http_access

TOKEN = "mcp-token-0123456789abcdef"


@pytest.mark.parametrize("host", ["127.0.0.1", "127.8.0.1", "::1", "localhost", "LOCALHOST"])
def test_loopback_addresses_and_localhost_count_as_loopback(host: str) -> None:
    assert is_loopback(host) is True


@pytest.mark.parametrize("host", ["0.0.0.0", "::", "10.0.0.5", "my-laptop", "localhost.evil"])
def test_wildcards_other_addresses_and_names_do_not(host: str) -> None:
    assert is_loopback(host) is False


def test_on_loopback_the_defaults_are_the_loopback_names_at_the_port() -> None:
    assert http_access({}, "127.0.0.1", 8765) == HttpAccess(
        url="http://127.0.0.1:8765/mcp",
        token=None,
        allowed_hosts=("127.0.0.1:8765", "localhost:8765", "[::1]:8765"),
        allowed_origins=(
            "http://127.0.0.1:8765",
            "https://127.0.0.1:8765",
            "http://localhost:8765",
            "https://localhost:8765",
            "http://[::1]:8765",
            "https://[::1]:8765",
        ),
    )


def test_on_every_interface_only_the_loopback_names_are_allowed_by_default() -> None:
    access = http_access({"SLACK_QUESTIONS_MCP_TOKEN": TOKEN}, "0.0.0.0", 8765)
    assert access.allowed_hosts == ("127.0.0.1:8765", "localhost:8765", "[::1]:8765")
    assert access.token == SecretStr(TOKEN)


def test_on_another_address_only_that_address_is_allowed_by_default() -> None:
    access = http_access({"SLACK_QUESTIONS_MCP_TOKEN": TOKEN}, "fd00::5", 8765)
    assert access.url == "http://[fd00::5]:8765/mcp"
    assert access.allowed_hosts == ("[fd00::5]:8765",)
    assert access.allowed_origins == ("http://[fd00::5]:8765", "https://[fd00::5]:8765")


def test_configured_hosts_replace_the_default_and_give_their_origins() -> None:
    access = http_access(
        {
            "SLACK_QUESTIONS_MCP_TOKEN": TOKEN,
            "SLACK_QUESTIONS_MCP_ALLOWED_HOSTS": " mcp.example.com , mcp.internal:* ",
        },
        "0.0.0.0",
        8765,
    )
    assert access.allowed_hosts == ("mcp.example.com", "mcp.internal:*")
    assert access.allowed_origins == (
        "http://mcp.example.com",
        "https://mcp.example.com",
        "http://mcp.internal:*",
        "https://mcp.internal:*",
    )


def test_every_problem_is_named_at_once() -> None:
    with pytest.raises(ConfigError) as raised:
        http_access(
            {
                "SLACK_QUESTIONS_MCP_ALLOWED_HOSTS": "a.example/x",
                "SLACK_QUESTIONS_MCP_ALLOWED_ORIGINS": "ftp://a.example",
            },
            "10.0.0.5",
            8765,
        )
    assert str(raised.value) == (
        "cannot start:\n"
        "  - --http 10.0.0.5:8765 listens beyond this machine's loopback, so anyone who "
        "reaches it could ask and read answers: set SLACK_QUESTIONS_MCP_TOKEN (at least 16 "
        "characters; clients send Authorization: Bearer <token>), or listen on 127.0.0.1\n"
        "  - SLACK_QUESTIONS_MCP_ALLOWED_HOSTS: 'a.example/x' is not HOST or HOST:PORT "
        "(entries are comma-separated)\n"
        "  - SLACK_QUESTIONS_MCP_ALLOWED_ORIGINS: 'ftp://a.example' is not "
        "http(s)://HOST[:PORT] (entries are comma-separated)"
    )


def test_on_loopback_a_configured_token_is_kept_and_so_required() -> None:
    assert http_access({"SLACK_QUESTIONS_MCP_TOKEN": TOKEN}, "127.0.0.1", 1).token == SecretStr(
        TOKEN
    )


async def test_the_verifier_accepts_only_the_token_itself() -> None:
    verifier = StaticTokenVerifier(SecretStr(TOKEN))
    accepted = await verifier.verify_token(TOKEN)
    assert accepted is not None
    assert accepted.client_id == "slack-questions-mcp-client"
    assert await verifier.verify_token(TOKEN[:-1]) is None
    assert await verifier.verify_token(TOKEN + "x") is None
    assert await verifier.verify_token("") is None
