"""`python -m bot credentials create|list|revoke`: on the configured store, no Slack needed."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from bot.cli import main
from bot.service.principals import Principal, Principals, Refusal
from bot.store import CredentialLimits
from bot.store.sqlite import SqliteStore


def principal_of(db: Path, token: str) -> Principal | Refusal:
    async def look() -> Principal | Refusal:
        async with SqliteStore(db) as store:
            return await Principals(store, None).of(f"Bearer {token}")

    return asyncio.run(look())


def test_create_prints_the_token_alone_and_says_on_stderr_it_is_shown_once(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = tmp_path / "asks.db"
    code = main(
        ["credentials", "create", "--agent", "ci", "--channel", "C0DEPLOYS", "--db", str(db)]
    )
    out, err = capsys.readouterr()
    token = out.strip()
    assert (code, out) == (0, token + "\n")
    assert token.startswith("sqc_")
    assert "shown once" in err
    assert principal_of(db, token) == Principal(
        admin=False,
        agents=frozenset({"ci"}),
        channels=("C0DEPLOYS",),
        limits=CredentialLimits(),
        credential_id=token.split("_")[1],
    )


def test_create_takes_its_limits_label_and_several_agents(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SLACK_QUESTIONS_DB", str(tmp_path / "asks.db"))
    argv = ["credentials", "create", "--agent", "a", "--agent", "b", "--max-pending", "5"]
    argv += ["--creates-per-minute", "7", "--max-waits", "2", "--label", "CI runners"]
    assert main(argv) == 0
    token = capsys.readouterr().out.strip()
    assert main(["credentials", "list"]) == 0
    listed = capsys.readouterr().out
    assert listed.startswith(
        f"{token.split('_')[1]}  label=CI runners  agents=a,b  channels=configured  "
        "max_pending=5 creates_per_minute=7 max_waits=2  created="
    )
    assert listed.rstrip().endswith("revoked=-")
    assert token.split("_", 2)[2] not in listed


def test_create_may_pin_the_requester_every_ask_is_on_behalf_of(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = tmp_path / "asks.db"
    argv = ["credentials", "create", "--agent", "dev", "--requester", "U0ALICE001"]
    assert main([*argv, "--db", str(db)]) == 0
    token = capsys.readouterr().out.strip()
    principal = principal_of(db, token)
    assert isinstance(principal, Principal)
    assert principal.requester == "U0ALICE001"
    assert main(["credentials", "list", "--db", str(db)]) == 0
    assert "  requester=U0ALICE001  revoked=-" in capsys.readouterr().out


def test_revoke_stops_the_token_working(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db = str(tmp_path / "asks.db")
    main(["credentials", "create", "--agent", "ci", "--db", db])
    main(["credentials", "create", "--agent", "other", "--db", db])
    token = capsys.readouterr().out.split()[0]
    assert main(["credentials", "revoke", token.split("_")[1], "--db", db]) == 0
    assert principal_of(Path(db), token) == Refusal("UNAUTHORIZED", "missing or wrong bearer token")


def test_revoking_an_unknown_id_exits_2_naming_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["credentials", "revoke", "0123456789ab", "--db", str(tmp_path / "a.db")]) == 2
    assert capsys.readouterr().err == (
        "credentials revoke: no credential '0123456789ab' (see `credentials list`)\n"
    )


@pytest.mark.parametrize(
    ("argv", "said"),
    [
        (["--agent", "has space"], "agent id 'has space' is malformed"),
        (["--agent", "ci", "--channel", "D123"], "channel 'D123' must be a channel id"),
        (["--agent", "ci", "--max-pending", "0"], "--max-pending must be from 1 to 100000, not 0"),
        (["--agent", "ci", "--max-waits", "100001"], "--max-waits must be from 1 to 100000"),
        ([], "name at least one --agent ID (or --admin for every agent)"),
        (
            ["--agent", "ci", "--requester", "S0REVIEWER"],
            "requester 'S0REVIEWER' must be a Slack user id like U0123ABCD",
        ),
    ],
)
def test_bad_input_to_create_exits_2_saying_what_was_wrong(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], argv: list[str], said: str
) -> None:
    db = tmp_path / "asks.db"
    assert main(["credentials", "create", *argv, "--db", str(db)]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert said in err
    assert not db.exists()  # checked before the store is opened
