"""Whether a host name is this machine only: one rule for every listener and client address."""

from __future__ import annotations

import ipaddress


def is_loopback(host: str) -> bool:
    """True only for `localhost` and loopback addresses (127.0.0.0/8, ::1, `[::1]`); other
    names and wildcards are not."""
    if host.lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False
