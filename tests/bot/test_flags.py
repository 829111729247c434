"""`python -m bot --help` names every command `bot/cli.py` dispatches, and the relay's limits."""

from __future__ import annotations

import contextlib
import io
import re
from pathlib import Path

import pytest

import bot.cli
from bot.flags import parse_args
from provider.relay_wire import MAX_WAIT_SECONDS


def help_text() -> str:
    out = io.StringIO()
    with contextlib.redirect_stdout(out), pytest.raises(SystemExit):
        parse_args(["--help"])
    return out.getvalue()


def test_help_names_every_command_the_entry_point_dispatches() -> None:
    dispatched = re.findall(r'argv\[:1\] == \["([a-z-]+)"\]', Path(bot.cli.__file__).read_text())
    assert sorted(dispatched) == ["audit", "credentials", "erase", "hook", "mcp"]
    listed = re.findall(r"^  python -m bot ([a-z-]+)", help_text(), re.MULTILINE)
    assert sorted(listed) == sorted(dispatched)


def test_help_states_the_relays_wait_limit() -> None:
    assert f"at most {MAX_WAIT_SECONDS} seconds" in help_text()
