"""Noticing that nobody reads the hook's stdout any more (bot/hooks/parent.py)."""

from __future__ import annotations

import os
import socket

from bot.hooks.parent import hung_up


def test_a_pipe_whose_reader_closed_is_hung_up() -> None:
    read, write = os.pipe()
    try:
        assert not hung_up(write)
        os.close(read)
        assert hung_up(write)
    finally:
        os.close(write)


def test_a_socket_whose_peer_closed_is_hung_up() -> None:
    ours, theirs = socket.socketpair()  # what Claude Code gives its hooks as stdout
    with ours:
        assert not hung_up(ours.fileno())
        theirs.close()
        assert hung_up(ours.fileno())
