"""compose.yaml: two replicas built from the Dockerfile on one PostgreSQL. Read from the file,
then the replicas' exact command lines and environment started as compose would start them
(without Docker) against a real PostgreSQL and the emulator."""

from __future__ import annotations

import asyncio
import json
import re
import sys
from collections.abc import AsyncIterator, Mapping
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import aiohttp
import yaml

from slack_emulator import SlackEmulator

from ...test_dockerfile import instructions, last
from ..harness import ALICE, CHANNEL
from .harness import RELAY_TOKEN, SECRET, TOKEN, free_port, relay
from .test_relay import DB, posted

ROOT = Path(__file__).resolve().parents[3]
REPLICAS = ("replica-a", "replica-b")
# ${NAME}, ${NAME:-default}, ${NAME:?error}: the interpolation compose.yaml uses.
VARIABLE = re.compile(r"\$\{(?P<name>[A-Z_]+)(?::(?P<op>[-?])(?P<arg>[^}]*))?\}")


def compose() -> dict[str, Any]:
    loaded: dict[str, Any] = yaml.safe_load((ROOT / "compose.yaml").read_text())
    return loaded


def interpolate(value: str, variables: Mapping[str, str]) -> str:
    """`value` with compose's variables filled in; a `:?` variable left unset is an error."""

    def one(match: re.Match[str]) -> str:
        given = variables.get(match["name"], "")
        if given or match["op"] is None:
            return given
        if match["op"] == "?":
            raise KeyError(f"{match['name']}: {match['arg']}")
        return match["arg"]

    return VARIABLE.sub(one, value)


def image_env() -> dict[str, str]:
    """The Dockerfile's ENV, as the image sets it."""
    env: dict[str, str] = {}
    for keyword, rest in instructions():
        if keyword == "ENV":
            for pair in rest.split():
                key, _, value = pair.partition("=")
                env[key] = value
    return env


def test_the_replicas_run_the_image_the_dockerfile_builds_not_the_source_tree() -> None:
    for name in REPLICAS:
        service = compose()["services"][name]
        assert (service["build"], service["image"]) == (".", "slack-questions:local"), name
        # No mount of the checkout, no install at start: the image holds the package.
        assert "volumes" not in service, name
        assert "command" not in service, name
        assert service["read_only"] is True, name


def test_the_image_has_the_postgres_driver_the_replicas_use() -> None:
    installs = [rest for keyword, rest in instructions() if keyword == "RUN" and "pip" in rest]
    assert any("pip install '.[postgres]'" in rest for rest in installs)


def test_ports_are_published_on_loopback_only() -> None:
    ports = [port for name in REPLICAS for port in compose()["services"][name]["ports"]]
    assert ports == ["127.0.0.1:3001:3000", "127.0.0.1:3002:3000"]


def test_no_password_is_fixed_in_the_file() -> None:
    services = compose()["services"]
    database = services["postgres"]["environment"]["POSTGRES_PASSWORD"]
    assert database == "${POSTGRES_PASSWORD:?set POSTGRES_PASSWORD}"
    url = services["replica-a"]["environment"]["SLACK_QUESTIONS_DB"]
    assert "${POSTGRES_PASSWORD:?set POSTGRES_PASSWORD}@postgres:5432" in url
    for name in ("SLACK_BOT_TOKEN", "SLACK_QUESTIONS_CHANNEL", "SLACK_QUESTIONS_RESPONDERS"):
        assert services["replica-a"]["environment"][name].startswith(f"${{{name}:?"), name


def replica_env(
    name: str, variables: Mapping[str, str], emu: SlackEmulator, db: str
) -> dict[str, str]:
    """What the replica's process sees: the image's ENV, then the service's environment,
    interpolated. Three things differ on purpose from a container: the Slack API is the
    emulator, the database host is the test's server, and both replicas share one host."""
    declared = compose()["services"][name]["environment"]
    env = image_env() | {key: interpolate(str(value), variables) for key, value in declared.items()}
    assert env["SLACK_QUESTIONS_DB"].endswith("@postgres:5432/slack_questions")
    return {
        **{key: value for key, value in env.items() if value},
        "SLACK_API_URL": emu.api_url,
        "SLACK_QUESTIONS_DB": db,
        "HOST": "127.0.0.1",
        "PORT": str(free_port()),
    }


@asynccontextmanager
async def replica(env: Mapping[str, str], cwd: Path) -> AsyncIterator[str]:
    """The image's entrypoint with compose's (absent) command, started in the image's
    WORKDIR stand-in; its relay URL once it listens."""
    entrypoint = json.loads(last("ENTRYPOINT"))
    assert entrypoint == ["python", "-m", "bot"]
    proc = await asyncio.create_subprocess_exec(
        sys.executable,
        *entrypoint[1:],
        cwd=cwd,
        env={"PATH": "/usr/bin:/bin", "PYTHONPATH": str(ROOT), **env},
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.STDOUT,
    )
    assert proc.stdout is not None
    output = []
    while b"listening on" not in (line := await asyncio.wait_for(proc.stdout.readline(), 30)):
        output.append(line.decode())
        assert line, "the replica exited before listening:\n" + "".join(output)
    drain = asyncio.create_task(proc.stdout.read())
    try:
        yield f"http://127.0.0.1:{env['PORT']}"
    finally:
        proc.terminate()
        assert await asyncio.wait_for(proc.wait(), 20) == 0
        await drain


async def test_two_replicas_started_as_compose_starts_them_share_one_postgres(
    emu: SlackEmulator, postgres_url: str, tmp_path: Path
) -> None:
    variables = {
        "SLACK_BOT_TOKEN": TOKEN,
        "SLACK_SIGNING_SECRET": SECRET,
        "SLACK_QUESTIONS_CHANNEL": CHANNEL,
        "SLACK_QUESTIONS_RESPONDERS": "*",
        "SLACK_QUESTIONS_RELAY_TOKEN": RELAY_TOKEN,
        "POSTGRES_PASSWORD": "not-used-here",
    }
    envs = [replica_env(name, variables, emu, postgres_url) for name in REPLICAS]
    assert [env["SLACK_QUESTIONS_REPLICA"] for env in envs] == list(REPLICAS)
    async with (
        replica(envs[0], tmp_path) as a,
        replica(envs[1], tmp_path) as b,
        aiohttp.ClientSession() as http,
    ):
        emu.request_url = f"{b}/slack/events"
        status, created = await relay(http, "POST", f"{a}/v1/asks", json={"questions": [DB]})
        assert status == 201
        # Asked on A, answered through B, read back on A: one database behind both.
        await emu.person(ALICE).click(await posted(emu), text="SQLite")
        status, view = await relay(http, "GET", f"{a}/v1/asks/{created['id']}?wait=20")
    assert (status, view["state"], view["answer"]) == (
        200,
        "answered",
        {"answers": [{"id": "db", "selected": ["SQLite"]}]},
    )
    # Nothing written where the image's WORKDIR is (the store is PostgreSQL).
    assert await asyncio.to_thread(lambda: list(tmp_path.iterdir())) == []
