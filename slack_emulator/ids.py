"""Identifier and timestamp factories, in Slack's formats, deterministic per seed."""

from __future__ import annotations

import itertools
import random
import string
import uuid

from slack_emulator.timekeeping import Clock

_UPPER = string.ascii_uppercase + string.digits
_MIXED = string.ascii_letters + string.digits


class Ids:
    """Mints every id the emulator hands out. One per emulator; no module state."""

    def __init__(self, clock: Clock, seed: int | None = 0) -> None:
        self._clock = clock
        self._rng = random.Random(seed)
        self._last_ts_us = 0
        self._counter = itertools.count(1)

    def _pick(self, alphabet: str, length: int) -> str:
        return "".join(self._rng.choice(alphabet) for _ in range(length))

    def ts(self) -> str:
        """A message ts like "1700000000.000100": unique and strictly increasing, even when
        the clock stands still."""
        micros = round(self._clock.now() * 1_000_000)
        micros = max(micros, self._last_ts_us + 1)
        self._last_ts_us = micros
        return f"{micros // 1_000_000}.{micros % 1_000_000:06d}"

    def view_id(self) -> str:
        return "V" + self._pick(_UPPER, 10)

    def view_hash(self) -> str:
        """Like Slack's "1569362015.55b5e41b"; new on every change of the view."""
        return f"{int(self._clock.now())}.{self._pick(_MIXED, 8)}"

    def block_id(self) -> str:
        """What Slack fills in for a block without a block_id (e.g. "8KR", "hspI")."""
        return self._pick(_MIXED, 5)

    def action_id(self) -> str:
        return self._pick(_MIXED, 5)

    def trigger_id(self) -> str:
        """Slack's documented shape "132456.7890123.abcdef"."""
        return f"{next(self._counter)}{self._pick(string.digits, 6)}.{self._pick(string.digits, 13)}.{self._hex(32)}"

    def event_id(self) -> str:
        return "Ev" + self._pick(_UPPER, 10)

    def uuid(self) -> str:
        return str(uuid.UUID(int=self._rng.getrandbits(128), version=4))

    def secret(self) -> str:
        return self._hex(24)

    def _hex(self, length: int) -> str:
        return self._pick("0123456789abcdef", length)
