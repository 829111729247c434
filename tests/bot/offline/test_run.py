"""`python -m bot` with no Slack credentials: emulator, service, demo agent and terminal."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import pty
import signal
import socket
import sys
from pathlib import Path

import aiohttp
import pytest

from tests.slack_emulator.playground.html_tree import find

ROOT = Path(__file__).resolve().parents[3]


async def read_until(stream: asyncio.StreamReader, marker: str, seen: list[str]) -> str:
    """Read output until a line holding `marker`; every line read is kept in `seen` and
    shown when the marker does not come."""
    while True:
        try:
            line = (await asyncio.wait_for(stream.readline(), 30)).decode()
        except TimeoutError:
            raise AssertionError(f"no {marker!r} within 30 s:\n{''.join(seen)}") from None
        if not line:
            raise AssertionError(f"output ended before {marker!r}:\n{''.join(seen)}")
        seen.append(line)
        if marker in line:
            return line


async def start_bot(*args: str, env: dict[str, str], stdin: int) -> asyncio.subprocess.Process:
    """`python -m bot ARGS` run from the repository, its stdout and stderr on one pipe."""
    return await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "bot",
        *args,
        cwd=ROOT,
        env=env,
        stdin=stdin,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.STDOUT,
    )


async def test_offline_mode_runs_the_demo_and_the_person_answers_at_the_terminal() -> None:
    env = {"PATH": os.environ.get("PATH", ""), "PYTHONPATH": str(ROOT), "NO_COLOR": "1"}
    proc = await start_bot("--port", "0", env=env, stdin=asyncio.subprocess.PIPE)
    assert proc.stdin is not None
    assert proc.stdout is not None
    seen: list[str] = []
    try:
        await read_until(proc.stdout, "Offline: a local Slack emulator stands in for Slack", seen)
        # No SLACK_QUESTIONS_RESPONDERS offline: you, and only you, may answer.
        you = await read_until(proc.stdout, "You are @you in #agent-questions", seen)
        assert you.startswith("You are @you in #agent-questions, the one person who may answer.")
        await read_until(proc.stdout, "[1] Postgres (Recommended)  [2] SQLite  [3] DynamoDB", seen)
        proc.stdin.write(b"2\n")
        await proc.stdin.drain()
        got = await read_until(proc.stdout, "[demo agent] got", seen)
        answer = json.loads(got.split("[demo agent] got ", 1)[1])
        assert answer == {"answers": [{"id": "database", "selected": ["SQLite"]}]}
        await read_until(proc.stdout, "Answered by @you", seen)
    finally:
        if proc.returncode is None:
            proc.send_signal(signal.SIGTERM)
        code = await asyncio.wait_for(proc.wait(), 30)
    assert code == 0, "".join(seen)


async def test_offline_mode_serves_the_relay_and_the_playground_answers_its_asks() -> None:
    # An agent outside the process asks through the relay; a person answers on the playground
    # page (its /act endpoint, as the page's script does); the relay returns the answer.
    token = "offline-relay-token-0123456789"
    env = {
        "PATH": os.environ.get("PATH", ""),
        "PYTHONPATH": str(ROOT),
        "NO_COLOR": "1",
        "SLACK_QUESTIONS_RELAY_TOKEN": token,
    }
    proc = await start_bot("--port", "0", "--no-demo", env=env, stdin=asyncio.subprocess.PIPE)
    assert proc.stdout is not None
    seen: list[str] = []
    try:
        listening = await read_until(proc.stdout, "The service listens on", seen)
        assert listening.rstrip().endswith("(relay at /v1).")
        service = listening.split("listens on ", 1)[1].split(" ", 1)[0]
        banner = await read_until(proc.stdout, "Playground: ", seen)
        playground = banner.split("Playground: ", 1)[1].split(" ", 1)[0]
        auth = {"Authorization": f"Bearer {token}"}
        async with aiohttp.ClientSession() as http:
            created = await http.post(
                f"{service}/v1/asks",
                headers=auth,
                json={
                    "idempotency_key": "offline-relay-1",
                    "questions": [
                        {
                            "id": "go",
                            "question": "Deploy now?",
                            "options": [{"label": "Yes"}, {"label": "No"}],
                        }
                    ],
                },
            )
            assert created.status == 201, await created.text()
            ask_id = (await created.json())["id"]
            button = await _button_on_page(http, playground, "No")
            acted = await http.post(
                f"{playground}act",
                json={"user": "U0YOU00001", "do": "click", **button},
            )
            assert await acted.json() == {"delivered": True, "acked": True, "status": 200}
            answered = await http.get(f"{service}/v1/asks/{ask_id}?wait=10", headers=auth)
            body = await answered.json()
        assert (body["state"], body["answer"]) == (
            "answered",
            {"answers": [{"id": "go", "selected": ["No"]}]},
        )
    finally:
        if proc.returncode is None:
            proc.send_signal(signal.SIGTERM)
        code = await asyncio.wait_for(proc.wait(), 30)
    assert code == 0, "".join(seen)


async def test_refused_relay_requests_do_not_print_into_the_offline_terminal() -> None:
    token = "offline-relay-token-0123456789"
    env = {**offline_env(), "SLACK_QUESTIONS_RELAY_TOKEN": token}
    proc = await start_bot("--port", "0", "--no-demo", env=env, stdin=asyncio.subprocess.PIPE)
    assert proc.stdout is not None
    seen: list[str] = []
    try:
        listening = await read_until(proc.stdout, "The service listens on", seen)
        service = listening.split("listens on ", 1)[1].split(" ", 1)[0]
        await read_until(proc.stdout, "Type h for help", seen)
        async with aiohttp.ClientSession() as http:
            wrong = await http.post(f"{service}/v1/asks", headers={"Authorization": "Bearer x"})
            garbage = await http.post(
                f"{service}/v1/asks", headers={"Authorization": f"Bearer {token}"}, data=b"{"
            )
        assert (wrong.status, garbage.status) == (401, 400)
    finally:
        if proc.returncode is None:
            proc.send_signal(signal.SIGTERM)
        rest = (await asyncio.wait_for(proc.stdout.read(), 30)).decode()
        code = await asyncio.wait_for(proc.wait(), 30)
    output = "".join(seen) + rest
    assert code == 0, output
    assert "relay refused" not in output


async def _button_on_page(
    http: aiohttp.ClientSession, playground: str, label: str
) -> dict[str, object]:
    """The act fields of the button labelled `label`, read from the page as soon as it shows
    it: the page is re-read on each of the playground's live-update events."""
    async with http.get(f"{playground}events") as events:
        while True:
            page = await (await http.get(playground)).text()
            for surface in find(page, "div", data_kind="message"):
                for button in surface.descendants():
                    if button.tag == "button" and button.text == label:
                        return {
                            "surface": {
                                "kind": "message",
                                "channel": surface.attrs["data-channel"],
                                "id": surface.attrs["data-id"],
                            },
                            "block_id": button.attrs["data-block"],
                            "action_id": button.attrs["data-action"],
                        }
            while not (await asyncio.wait_for(events.content.readline(), 30)).startswith(b"data:"):
                pass


def offline_env() -> dict[str, str]:
    """No Slack credentials: `python -m bot` runs offline."""
    return {"PATH": os.environ.get("PATH", ""), "PYTHONPATH": str(ROOT), "NO_COLOR": "1"}


async def test_a_busy_port_is_named_with_how_to_pick_another_and_exit_status_2() -> None:
    busy = socket.socket()
    busy.bind(("127.0.0.1", 0))
    busy.listen()
    port = busy.getsockname()[1]
    try:
        proc = await asyncio.create_subprocess_exec(
            sys.executable,
            "-m",
            "bot",
            "--port",
            str(port),
            "--no-demo",
            cwd=ROOT,
            env=offline_env(),
            stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
        )
        out, err = await asyncio.wait_for(proc.communicate(), 60)
    finally:
        busy.close()
    assert proc.returncode == 2, out.decode() + err.decode()
    assert err.decode().splitlines() == [
        f"cannot start: port {port} on 127.0.0.1 is already in use by another program; "
        "pick another with --port N (or PORT=N), or --port 0 for any free port"
    ]


async def test_ctrl_d_at_the_terminal_ends_the_process_cleanly() -> None:
    controller, tty = pty.openpty()
    try:
        proc = await start_bot("--port", "0", "--no-demo", env=offline_env(), stdin=tty)
        assert proc.stdout is not None
        seen: list[str] = []
        await read_until(proc.stdout, "Type h for help", seen)
        os.write(controller, b"\x04")  # Ctrl-D at the start of a line: end of input
        rest, _ = await asyncio.wait_for(proc.communicate(), 30)
    finally:
        os.close(controller)
        os.close(tty)
    output = "".join(seen) + rest.decode()
    assert proc.returncode == 0, output
    assert "Traceback" not in output
    assert "Input ended: stopping." in output


async def test_stdin_from_dev_null_keeps_serving_without_an_asyncio_traceback() -> None:
    proc = await start_bot(
        "--port", "0", "--no-demo", env=offline_env(), stdin=asyncio.subprocess.DEVNULL
    )
    assert proc.stdout is not None
    seen: list[str] = []
    try:
        await read_until(proc.stdout, "No terminal input", seen)
    finally:
        proc.send_signal(signal.SIGTERM)
        rest, _ = await asyncio.wait_for(proc.communicate(), 30)
    output = "".join(seen) + rest.decode()
    assert proc.returncode == 0, output
    assert "Traceback" not in output
    assert "ERROR" not in output


def listening(pid: int) -> set[tuple[str, int]]:
    """The addresses process `pid` listens on (TCP), read from /proc: its socket inodes, then
    the kernel's socket tables."""
    inodes = set()
    for fd in Path(f"/proc/{pid}/fd").iterdir():
        with contextlib.suppress(OSError):
            target = os.readlink(fd)
            if target.startswith("socket:["):
                inodes.add(target[len("socket:[") : -1])
    found: set[tuple[str, int]] = set()
    for table, family in (("tcp", socket.AF_INET), ("tcp6", socket.AF_INET6)):
        lines = Path(f"/proc/{pid}/net/{table}").read_text().splitlines()[1:]
        for line in lines:
            fields = line.split()
            local, state, inode = fields[1], fields[3], fields[9]
            if state != "0A" or inode not in inodes:  # 0A: LISTEN
                continue
            address, port = local.split(":")
            # The kernel prints each 32-bit word of the address in host (little-endian) order.
            words = [bytes.fromhex(address[i : i + 8])[::-1] for i in range(0, len(address), 8)]
            found.add((socket.inet_ntop(family, b"".join(words)), int(port, 16)))
    return found


@pytest.mark.skipif(not Path("/proc/self/net/tcp").exists(), reason="reads Linux's /proc")
async def test_offline_every_listener_is_on_loopback_even_when_host_says_every_interface() -> None:
    proc = await start_bot(
        "--port",
        "0",
        "--no-demo",
        env={**offline_env(), "HOST": "0.0.0.0"},
        stdin=asyncio.subprocess.DEVNULL,
    )
    assert proc.stdout is not None
    seen: list[str] = []
    try:
        await read_until(proc.stdout, "Type h for help", seen)
        bound = listening(proc.pid)
    finally:
        proc.send_signal(signal.SIGTERM)
        await asyncio.wait_for(proc.communicate(), 30)
    # The emulator, the service and the playground: three listeners, none beyond loopback.
    assert len(bound) == 3, (bound, "".join(seen))
    assert {address for address, _ in bound} == {"127.0.0.1"}, "".join(seen)
    assert any(line.startswith("HOST=0.0.0.0 is not used offline") for line in seen), seen


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@pytest.mark.skipif(not Path("/proc/self/net/tcp").exists(), reason="reads Linux's /proc")
async def test_only_the_playground_listens_beyond_loopback_when_asked_and_still_wants_its_token() -> (
    None
):
    port = free_port()
    env = {**offline_env(), "HOST": "0.0.0.0", "SLACK_QUESTIONS_PLAYGROUND": f"0.0.0.0:{port}"}
    proc = await start_bot("--port", "0", "--no-demo", env=env, stdin=asyncio.subprocess.DEVNULL)
    assert proc.stdout is not None
    seen: list[str] = []
    try:
        banner = await read_until(proc.stdout, "Playground: ", seen)
        url = banner.split("Playground: ", 1)[1].split(" ", 1)[0]
        await read_until(proc.stdout, "Type h for help", seen)
        bound = listening(proc.pid)
        async with aiohttp.ClientSession() as http:
            with_token = (await http.get(url)).status
            without = await http.get(f"http://127.0.0.1:{port}/")
            refused = (without.status, await without.text())
    finally:
        proc.send_signal(signal.SIGTERM)
        await asyncio.wait_for(proc.communicate(), 30)
    assert [a for a in bound if a[0] != "127.0.0.1"] == [("0.0.0.0", port)], bound
    assert url.startswith(f"http://127.0.0.1:{port}/")
    assert f"The playground listens on 0.0.0.0:{port} (SLACK_QUESTIONS_PLAYGROUND)" in "".join(seen)
    assert (with_token, refused[0]) == (200, 403), refused


async def test_a_malformed_playground_address_is_named_and_exit_status_2() -> None:
    proc = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "bot",
        "--port",
        "0",
        "--no-demo",
        cwd=ROOT,
        env={**offline_env(), "SLACK_QUESTIONS_PLAYGROUND": "everywhere:80"},
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    out, err = await asyncio.wait_for(proc.communicate(), 60)
    assert proc.returncode == 2, out.decode() + err.decode()
    assert err.decode().splitlines() == [
        "cannot start: SLACK_QUESTIONS_PLAYGROUND must be HOST:PORT, e.g. 0.0.0.0:8080 to open "
        "the playground beyond loopback, not 'everywhere:80': 'everywhere' is not an IP address "
        "or localhost"
    ]
