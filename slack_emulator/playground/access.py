"""Who may use the playground: only the browser that opened the address it printed.

The page acts as anyone in the workspace, so every request must prove it came from there:

- **the token**: a random per-run secret, the first segment of every path
  (`/<token>/`, `/<token>/act`, `/<token>/events`, `/<token>/static/…`), compared in constant
  time. Another web page cannot learn it, so it cannot build an address that works.
- **the Host**: the bound address, `localhost` or a loopback address. A page whose own name was
  re-pointed at this machine (DNS rebinding) reaches the server with that name as its Host.
- **the Origin**, when the browser sends one: this playground's own (`http://` and the Host).

Anything else is refused with 403 and a line saying what was wrong (never the token).
"""

from __future__ import annotations

import ipaddress
import secrets
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Final
from urllib.parse import urlsplit

from aiohttp import web

LOOPBACK_NAMES: Final = frozenset({"localhost", "127.0.0.1", "::1"})
"""Host names that always mean this machine, whatever address the playground is bound to."""
_ROUTE_NAMES: Final = frozenset({"", "act", "events", "static"})
"""First path segments of the playground's own routes: a path starting with one has no token."""

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]


def url_host(bound_host: str) -> str:
    """The host to print in the playground's address: a wildcard bind (every interface) is
    opened on loopback, an IPv6 address goes in brackets."""
    try:
        address = ipaddress.ip_address(bound_host)
    except ValueError:
        return bound_host
    if address.is_unspecified:
        return "127.0.0.1" if address.version == 4 else "[::1]"
    return f"[{address}]" if address.version == 6 else str(address)


@dataclass(frozen=True)
class Access:
    """The playground's token and the Host names it answers to."""

    token: str
    hosts: frozenset[str]
    shown: str  # how the refusal names the hosts to use, e.g. "127.0.0.1 or localhost"

    @classmethod
    def fresh(cls, bound_host: str) -> Access:
        """A new random token, for a playground bound to `bound_host`."""
        name = url_host(bound_host).strip("[]").lower()
        return cls(
            token=secrets.token_urlsafe(32),
            hosts=LOOPBACK_NAMES | {name},
            shown=f"{name} or localhost" if name != "localhost" else "localhost",
        )

    def refusal(self, request: web.Request) -> str | None:
        """Why `request` may not be served, or None when it may."""
        host = request.headers.get("Host", "")
        hostname = _hostname(host)
        if hostname is None or hostname not in self.hosts:
            return (
                f"refused: Host {host!r} is not this playground's address; open it as {self.shown}"
            )
        origin = request.headers.get("Origin")
        if origin is not None and not _same_origin(origin, host):
            return f"refused: Origin {origin!r} is not this playground's (http://{host})"
        first = request.path.removeprefix("/").split("/", 1)[0]
        if first in _ROUTE_NAMES:
            return (
                "this address has no playground token: open the Playground address "
                "`python -m bot` printed (it holds the token)"
            )
        # Constant time: how long a refusal takes must not say how much of a guess was right.
        if not secrets.compare_digest(first.encode(), self.token.encode()):
            return "wrong playground token: open the Playground address `python -m bot` printed"
        return None

    @web.middleware
    async def middleware(self, request: web.Request, handler: Handler) -> web.StreamResponse:
        """Serve `request` only when `refusal` finds nothing wrong; 403 with the reason else.
        aiohttp runs middlewares for unrouted paths too, so no path escapes the check."""
        reason = self.refusal(request)
        if reason is not None:
            return web.Response(status=403, text=f"{reason}\n", content_type="text/plain")
        return await handler(request)


def _hostname(host: str) -> str | None:
    """The name in a Host header (`name:port`, `[v6]:port`), lower-cased; None when malformed."""
    if not host:
        return None
    try:
        parts = urlsplit(f"//{host}")
        parts.port  # noqa: B018 — raises ValueError on a port that is not a number
    except ValueError:
        return None
    return parts.hostname


def _same_origin(origin: str, host: str) -> bool:
    """Whether `origin` is `http://` and `host` (same name, same port)."""
    try:
        seen, own = urlsplit(origin), urlsplit(f"http://{host}")
        return (seen.scheme, seen.hostname, seen.port or 80, seen.path) == (
            "http",
            own.hostname,
            own.port or 80,
            "",
        )
    except ValueError:
        return False
