"""`announce_automatic`, the policy file's switch for the thread lines of automatic
decisions: on unless the file says false, and a value that is not a boolean is refused."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.review import PolicyError, ReviewPolicies, load_policies


def load(tmp_path: Path, text: str) -> ReviewPolicies:
    path = tmp_path / "review.toml"
    path.write_text(text)
    return load_policies(path)


def test_the_lines_are_on_unless_the_file_turns_them_off(tmp_path: Path) -> None:
    assert load(tmp_path, "[default]\napprovals = 1\n").announce_automatic is True
    assert load(tmp_path, "announce_automatic = false\n").announce_automatic is False


def test_a_value_that_is_not_a_boolean_is_refused_saying_where(tmp_path: Path) -> None:
    with pytest.raises(PolicyError) as refused:
        load(tmp_path, 'announce_automatic = "no"\n')
    assert str(refused.value) == (
        f"review policy {tmp_path / 'review.toml'}: announce_automatic: Input should be a "
        "valid boolean"
    )
