"""Where offline mode listens: on loopback, whatever `HOST` says.

Offline, the playground and the emulator act as anyone in the workspace, so nothing offline
is reachable from another machine by accident: `HOST=0.0.0.0` (the container image sets it
for the real service) is not used. Only the playground may listen beyond loopback, and only
when `SLACK_QUESTIONS_PLAYGROUND=HOST:PORT` says so on purpose; its token is still required.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Final

from bot.hosts import is_loopback
from bot.parts import StartupError

LOOPBACK: Final = "127.0.0.1"
PLAYGROUND_VARIABLE: Final = "SLACK_QUESTIONS_PLAYGROUND"
EXAMPLE_PORT: Final = 8080


@dataclass(frozen=True)
class Address:
    """A host and port to listen on (port 0: any free port)."""

    host: str
    port: int

    @property
    def loopback(self) -> bool:
        """Whether only this machine can reach it."""
        return is_loopback(self.host)


def playground_address(env: Mapping[str, str]) -> Address:
    """Where the playground listens: `SLACK_QUESTIONS_PLAYGROUND` (`HOST:PORT`, `[v6]:PORT`),
    or any free port on loopback. `StartupError` says what is wrong with a bad value."""
    value = env.get(PLAYGROUND_VARIABLE, "").strip()
    if not value:
        return Address(LOOPBACK, 0)
    host, colon, port_text = value.rpartition(":")
    host = host.removeprefix("[").removesuffix("]")
    problem = None
    if not colon or not host:
        problem = "it names no host"
    elif not port_text.isdigit() or not 0 <= int(port_text) <= 65535:
        problem = f"its port {port_text!r} is not a number from 0 to 65535"
    elif host != "localhost" and not _is_ip(host):
        problem = f"{host!r} is not an IP address or localhost"
    if problem is not None:
        raise StartupError(
            f"{PLAYGROUND_VARIABLE} must be HOST:PORT, e.g. 0.0.0.0:{EXAMPLE_PORT} to open the "
            f"playground beyond loopback, not {value!r}: {problem}"
        )
    return Address(host, int(port_text))


def _is_ip(host: str) -> bool:
    try:
        ipaddress.ip_address(host)
    except ValueError:
        return False
    return True


def exposure_notes(host: str, playground: Address | None) -> list[str]:
    """What the banner says about reaching offline mode from elsewhere: that `host` (from
    `--host`/`HOST`) is not used and how the playground (None: not served) could be opened
    beyond loopback, or that it is."""
    if playground is not None and not playground.loopback:
        return [
            f"The playground listens on {playground.host}:{playground.port} "
            f"({PLAYGROUND_VARIABLE}), beyond loopback: whoever reaches that port with the "
            "address above, token included, acts as anyone in the workspace. Open it as "
            "localhost or 127.0.0.1 through a published or forwarded port; other host names "
            "are refused."
        ]
    if is_loopback(host):
        return []
    note = f"HOST={host} is not used offline: everything listens on {LOOPBACK} only."
    if playground is None:
        return [note]
    return [
        f"{note} To open the playground from outside (e.g. from this container's host), set "
        f"{PLAYGROUND_VARIABLE}=0.0.0.0:{EXAMPLE_PORT} and publish that port: "
        f"docker run -it -p 127.0.0.1:{EXAMPLE_PORT}:{EXAMPLE_PORT} "
        f"-e {PLAYGROUND_VARIABLE}=0.0.0.0:{EXAMPLE_PORT} slack-questions, "
        "then open the Playground address it prints; its token is required."
    ]
