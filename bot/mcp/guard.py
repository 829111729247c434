"""Who may reach `python -m bot mcp --http`: the bearer token and the Host/Origin allowlists.

The SDK only checks Host and Origin by itself on 127.0.0.1/localhost/::1; anywhere else any
caller, a DNS-rebinding page included, could ask, read answers and withdraw asks. So the
checks are always on, against an allowlist that defaults to the bound address, and an
address other than loopback needs `SLACK_QUESTIONS_MCP_TOKEN`: every request must then carry
`Authorization: Bearer <token>` (the SDK's bearer middleware answers 401 otherwise).
"""

from __future__ import annotations

import hmac
import ipaddress
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Final

from mcp.server.auth.provider import AccessToken
from mcp.server.auth.settings import AuthSettings
from mcp.server.transport_security import TransportSecuritySettings
from pydantic import SecretStr

from bot.flags import ConfigError
from bot.hosts import is_loopback

TOKEN_VARIABLE: Final = "SLACK_QUESTIONS_MCP_TOKEN"
HOSTS_VARIABLE: Final = "SLACK_QUESTIONS_MCP_ALLOWED_HOSTS"
ORIGINS_VARIABLE: Final = "SLACK_QUESTIONS_MCP_ALLOWED_ORIGINS"
# As long as the relay token must be: shorter ones are guessable.
MIN_TOKEN_LENGTH: Final = 16
LOOPBACK_NAMES: Final = ("127.0.0.1", "localhost", "[::1]")
# The principal every holder of the one token is, for the SDK's session binding.
CLIENT_ID: Final = "slack-questions-mcp-client"

_HOST = r"(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9](?:[A-Za-z0-9.-]*[A-Za-z0-9])?)(:(\d{1,5}|\*))?"
_HOST_ENTRY = re.compile(rf"^{_HOST}$")
_ORIGIN_ENTRY = re.compile(rf"^https?://{_HOST}$")


@dataclass(frozen=True)
class HttpAccess:
    """What `--http` lets in: requests with `token` (if set) naming an allowed Host and Origin."""

    url: str  # where it serves: http://HOST:PORT/mcp
    token: SecretStr | None
    allowed_hosts: tuple[str, ...]
    allowed_origins: tuple[str, ...]

    def transport_security(self) -> TransportSecuritySettings:
        """The SDK's Host/Origin check (421 for a foreign Host, 403 for a foreign Origin)."""
        return TransportSecuritySettings(
            enable_dns_rebinding_protection=True,
            allowed_hosts=list(self.allowed_hosts),
            allowed_origins=list(self.allowed_origins),
        )


class StaticTokenVerifier:
    """The SDK's `TokenVerifier` for one configured token, compared in constant time."""

    def __init__(self, token: SecretStr) -> None:
        self._token = token.get_secret_value().encode()

    async def verify_token(self, token: str) -> AccessToken | None:
        """The access of `token` if it is the configured one, else None (the SDK answers 401)."""
        if not hmac.compare_digest(token.encode(), self._token):
            return None
        return AccessToken(token=token, client_id=CLIENT_ID, scopes=[])


def bearer_auth_settings(url: str) -> AuthSettings:
    """The settings that make the SDK require a bearer token on every request.

    The SDK wants an issuer URL, but with no authorization server and no resource URL it
    mounts no metadata routes and advertises nothing: the server's own URL stands in.
    """
    return AuthSettings(issuer_url=url, resource_server_url=None)


def http_access(env: Mapping[str, str], host: str, port: int) -> HttpAccess:
    """The access rules for `--http host:port`, or `ConfigError` listing every problem."""

    def get(name: str) -> str | None:
        return env.get(name, "").strip() or None

    problems: list[str] = []
    token = get(TOKEN_VARIABLE)
    if token is not None and len(token) < MIN_TOKEN_LENGTH:
        problems.append(
            f"{TOKEN_VARIABLE} must be at least {MIN_TOKEN_LENGTH} characters "
            f"(it has {len(token)}); make one with: python -c 'import secrets; "
            "print(secrets.token_urlsafe(32))'"
        )
    if token is None and not is_loopback(host):
        problems.append(
            f"--http {bracketed(host)}:{port} listens beyond this machine's loopback, so "
            f"anyone who reaches it could ask and read answers: set {TOKEN_VARIABLE} (at "
            f"least {MIN_TOKEN_LENGTH} characters; clients send Authorization: Bearer <token>), "
            "or listen on 127.0.0.1"
        )
    hosts = _entries(
        get(HOSTS_VARIABLE), HOSTS_VARIABLE, _HOST_ENTRY, "HOST or HOST:PORT", problems
    )
    origins = _entries(
        get(ORIGINS_VARIABLE), ORIGINS_VARIABLE, _ORIGIN_ENTRY, "http(s)://HOST[:PORT]", problems
    )
    if problems:
        raise ConfigError("cannot start:\n" + "\n".join(f"  - {p}" for p in problems))
    if not hosts:
        hosts = _default_hosts(host, port)
    if not origins:
        origins = tuple(f"{scheme}://{entry}" for entry in hosts for scheme in ("http", "https"))
    return HttpAccess(
        url=f"http://{bracketed(host)}:{port}/mcp",
        token=SecretStr(token) if token is not None else None,
        allowed_hosts=hosts,
        allowed_origins=origins,
    )


def _entries(
    value: str | None, name: str, pattern: re.Pattern[str], form: str, problems: list[str]
) -> tuple[str, ...]:
    entries = tuple(entry.strip() for entry in (value or "").split(",") if entry.strip())
    for entry in entries:
        if not pattern.match(entry):
            problems.append(f"{name}: {entry!r} is not {form} (entries are comma-separated)")
    return entries


def _default_hosts(host: str, port: int) -> tuple[str, ...]:
    """The bound address; on loopback or every interface, the loopback names too.

    A wildcard address is reached as loopback from this machine, and a loopback name in the
    Host header is never a rebinding page's own name, so both are safe to let in.
    """
    at = "*" if port == 0 else str(port)  # port 0: the port is not known until it is bound
    names = [bracketed(host)]
    if is_loopback(host) or _is_wildcard(host):
        names += [name for name in LOOPBACK_NAMES if name not in names]
    if _is_wildcard(host):
        names.remove(bracketed(host))  # no client ever sends Host: 0.0.0.0
    return tuple(f"{name}:{at}" for name in names)


def _is_wildcard(host: str) -> bool:
    try:
        return ipaddress.ip_address(host.strip("[]")).is_unspecified
    except ValueError:
        return host == ""


def bracketed(host: str) -> str:
    """`host` as it goes in a URL or a Host header: an IPv6 address in brackets."""
    return f"[{host}]" if ":" in host else host
