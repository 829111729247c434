"""The Claude Code hook in this process, stopped the moment its create reaches the relay.

For counting what the hook does before its first byte with a tool that measures the whole
process, unmoved by other load on the machine: valgrind counts instructions exactly.

    valgrind --tool=callgrind --callgrind-out-file=/dev/null python -m bench.hook_to_first_byte

prints `Collected : N` (instructions from interpreter start to the first byte, plus this
stand-in's few); compare with the same for `python -c pass`. A thread accepts the hook's
connection and ends the process (`os._exit`) when the first byte arrives. The event is
bench/hook_start.py's, not imported from there: that module's imports would be counted too.
"""

from __future__ import annotations

import io
import json
import os
import runpy
import socket
import sys
import threading

EVENT = {
    "session_id": "bench-session",
    "cwd": os.getcwd(),
    "hook_event_name": "PreToolUse",
    "tool_name": "Bash",
    "tool_input": {"command": "git push", "description": "Push the branch"},
}


def stop_at_first_byte(server: socket.socket) -> None:
    """Accept one connection; exit the process once a byte of it has arrived."""
    connection, _ = server.accept()
    connection.recv(1)
    os._exit(0)


def main() -> None:
    """Run `python -m bot hook claude-code` here on the bench's Bash PreToolUse."""
    server = socket.create_server(("127.0.0.1", 0))
    threading.Thread(target=stop_at_first_byte, args=(server,), daemon=True).start()
    os.environ["SLACK_QUESTIONS_RELAY_URL"] = f"http://127.0.0.1:{server.getsockname()[1]}"
    os.environ["SLACK_QUESTIONS_RELAY_TOKEN"] = "bench-token-0000000000"
    sys.stdin = io.StringIO(json.dumps(EVENT))
    sys.argv = ["bot", "hook", "claude-code"]
    runpy.run_module("bot", run_name="__main__", alter_sys=True)
    raise SystemExit("the hook ended without sending anything")


if __name__ == "__main__":
    main()
