"""The throwaway PostgreSQL server's search for binaries, and what the suite does without them."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests import postgres_server
from tests.conftest import no_server
from tests.postgres_server import NoPostgres, find_binaries


def install(root: Path, version: str) -> Path:
    bin_dir = root / version / "bin"
    bin_dir.mkdir(parents=True)
    (bin_dir / "initdb").touch()
    return bin_dir


def test_the_newest_installed_major_version_is_used(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(postgres_server, "DEBIAN_BINARIES", tmp_path)
    install(tmp_path, "9")
    newest = install(tmp_path, "15")
    install(tmp_path, "13")
    assert find_binaries() == newest


def test_without_binaries_the_search_says_how_to_get_a_server(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(postgres_server, "DEBIAN_BINARIES", tmp_path)
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(NoPostgres) as missing:
        find_binaries()
    assert str(missing.value) == (
        f"no PostgreSQL server binaries (initdb, pg_ctl) in {tmp_path}/<version>/bin or on"
        " PATH; install PostgreSQL (apt-get install postgresql) or point"
        " SLACK_QUESTIONS_TEST_PG at a server"
    )


def test_without_a_server_a_test_skips_outside_ci(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("CI", raising=False)
    with pytest.raises(pytest.skip.Exception, match=r"^no binaries$"):
        no_server("no binaries")


def test_without_a_server_ci_fails_rather_than_skips(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CI", "true")
    with pytest.raises(pytest.fail.Exception, match=r"^CI must run the PostgreSQL tests: no bin"):
        no_server("no binaries")
