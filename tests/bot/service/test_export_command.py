"""`python -m bot audit export`: the asks of a period as CSV or JSON Lines, and its errors."""

from __future__ import annotations

import asyncio
import csv
import io
import json
from pathlib import Path

import pytest

from bot.service.audit_command import main as audit_main
from bot.store.sqlite import SqliteStore
from tests.bot.audit_asks import HEADER, ROWS, WORKSPACE, store_asks

DAY_ARGS = ["--since", "2026-12-01", "--until", "2026-12-02T00:00:00Z"]


@pytest.fixture
def db(tmp_path: Path) -> Path:
    path = tmp_path / "asks.db"

    async def write() -> None:
        async with SqliteStore(path) as store:
            await store_asks(store)

    asyncio.run(write())
    return path


def export(db: Path, *args: str) -> list[str]:
    return ["export", *DAY_ARGS, "--db", str(db), "--workspace-url", WORKSPACE, *args]


def test_csv_has_the_fixed_columns_and_one_row_per_ask_of_the_period(
    db: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert audit_main(export(db, "--format", "csv"), env={}) == 0
    out, err = capsys.readouterr()
    assert out == HEADER + "".join(ROWS)
    assert err == "exported 5 asks\n"


def test_csv_read_back_is_exactly_the_jsonl(db: Path, capsys: pytest.CaptureFixture[str]) -> None:
    audit_main(export(db, "--format", "csv"), env={})
    from_csv = list(csv.DictReader(io.StringIO(capsys.readouterr().out, newline="")))
    audit_main(export(db, "--format", "jsonl"), env={})
    lines = capsys.readouterr().out.splitlines()
    assert [json.loads(line) for line in lines] == from_csv
    assert [row["ask_id"] for row in from_csv] == [
        "a1-person",
        "a2-rule",
        "a3-plan",
        "a4-batch",
        "a5-grant",
    ]


def test_jsonl_keeps_the_columns_in_their_order(
    db: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    audit_main(export(db, "--format", "jsonl"), env={})
    first = json.loads(capsys.readouterr().out.splitlines()[0])
    assert ",".join(first) + "\r\n" == HEADER


def ask_ids(db: Path, capsys: pytest.CaptureFixture[str], *args: str) -> list[str]:
    assert audit_main(export(db, "--format", "jsonl", *args), env={}) == 0
    return [json.loads(line)["ask_id"] for line in capsys.readouterr().out.splitlines()]


def test_agent_filter_keeps_the_agent_and_its_sessions(
    db: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert ask_ids(db, capsys, "--agent", "ci") == ["a1-person", "a4-batch", "a5-grant"]


def test_person_filter_keeps_what_they_decided(
    db: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert ask_ids(db, capsys, "--person", "U0ALICE") == ["a1-person"]


def test_outcome_filter_keeps_asks_that_ended_so(
    db: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert ask_ids(db, capsys, "--outcome", "expired") == ["a4-batch"]
    assert ask_ids(db, capsys, "--outcome", "pending") == ["a3-plan"]


def test_until_defaults_to_now(db: Path, capsys: pytest.CaptureFixture[str]) -> None:
    args = ["export", "--since", "2026-12-01", "--db", str(db), "--format", "jsonl"]
    assert audit_main(args, env={}) == 0
    assert len(capsys.readouterr().out.splitlines()) == 6  # the next day's ask too


def test_without_a_workspace_url_permalinks_are_empty_and_stderr_says_why(
    db: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    args = ["export", *DAY_ARGS, "--db", str(db), "--format", "jsonl"]
    assert audit_main(args, env={}) == 0
    out, err = capsys.readouterr()
    assert [json.loads(line)["permalink"] for line in out.splitlines()] == [""] * 5
    assert err == (
        "exported 5 asks (no permalinks: set --workspace-url or SLACK_QUESTIONS_WORKSPACE_URL)\n"
    )


def test_the_workspace_url_may_come_from_the_environment(
    db: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    args = ["export", *DAY_ARGS, "--db", str(db), "--format", "csv"]
    assert audit_main(args, env={"SLACK_QUESTIONS_WORKSPACE_URL": WORKSPACE}) == 0
    assert capsys.readouterr().out == HEADER + "".join(ROWS)


def test_out_writes_the_file_and_nothing_to_stdout(
    db: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    target = tmp_path / "asks.csv"
    assert audit_main(export(db, "--out", str(target)), env={}) == 0
    assert target.read_bytes() == (HEADER + "".join(ROWS)).encode()
    assert capsys.readouterr().out == ""
    assert sorted(p.name for p in tmp_path.iterdir()) == ["asks.csv", "asks.db"]


@pytest.mark.parametrize(
    ("args", "error"),
    [
        (
            ["--since", "2026-13-01"],
            "--since '2026-13-01' is not an ISO-8601 date or time "
            "(e.g. 2026-12-01 or 2026-12-01T09:30:00Z)",
        ),
        (
            ["--since", "2026-12-01", "--until", "yesterday"],
            "--until 'yesterday' is not an ISO-8601 date or time "
            "(e.g. 2026-12-01 or 2026-12-01T09:30:00Z)",
        ),
        (
            ["--since", "2026-12-02", "--until", "2026-12-01"],
            "--until '2026-12-01' is not after --since '2026-12-02'",
        ),
        (
            ["--since", "2026-12-01", "--outcome", "approved"],
            "--outcome 'approved' is not one of pending, answered, withdrawn, closed, "
            "cancelled, expired, failed",
        ),
        (["--since", "2026-12-01", "--format", "xlsx"], "--format 'xlsx' is not csv or jsonl"),
    ],
)
def test_bad_input_is_named_and_exits_2(
    db: Path, capsys: pytest.CaptureFixture[str], args: list[str], error: str
) -> None:
    assert audit_main(["export", *args, "--db", str(db)], env={}) == 2
    out, err = capsys.readouterr()
    assert (out, err) == ("", f"cannot export: {error}\n")


def test_a_missing_store_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    missing = tmp_path / "none.db"
    assert audit_main(["export", *DAY_ARGS, "--db", str(missing)], env={}) == 2
    assert capsys.readouterr().err.startswith("cannot export: ")
    assert not missing.exists()
