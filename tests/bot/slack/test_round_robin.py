"""The round of groups behind a channel's lane: each group's entries in order, groups in turn."""

from __future__ import annotations

from bot.slack.round_robin import RoundRobin


class _Entry:
    def __init__(self, name: str, order: int) -> None:
        self.name = name
        self.order = order
        self.gone = False

    def __lt__(self, other: _Entry) -> bool:
        return self.order < other.order


def _drain(queue: RoundRobin[_Entry]) -> list[str]:
    names = []
    while (entry := queue.pop()) is not None:
        names.append(entry.name)
    return names


def test_a_group_served_last_goes_behind_a_group_that_came_since() -> None:
    queue: RoundRobin[_Entry] = RoundRobin()
    queue.push("a", _Entry("a1", 1))
    assert _drain(queue) == ["a1"]  # "a" served, with nothing left
    queue.push("a", _Entry("a2", 2))
    queue.push("b", _Entry("b3", 3))
    assert _drain(queue) == ["b3", "a2"]


def test_gone_entries_are_skipped_and_an_emptied_group_loses_its_turn() -> None:
    queue: RoundRobin[_Entry] = RoundRobin()
    gone = [_Entry("a1", 1), _Entry("a2", 2)]
    for entry in gone:
        queue.push("a", entry)
    queue.push("b", _Entry("b1", 1))
    queue.push("a", _Entry("a3", 3))
    for entry in gone:
        entry.gone = True
    assert _drain(queue) == ["a3", "b1"]


def test_an_entry_pushed_first_takes_its_groups_turn_back() -> None:
    queue: RoundRobin[_Entry] = RoundRobin()
    for name, order in (("a1", 1), ("a2", 2)):
        queue.push("a", _Entry(name, order))
    queue.push("b", _Entry("b1", 1))
    refused = queue.pop()
    assert refused is not None
    assert refused.name == "a1"
    queue.push_first("a", refused)  # Slack said 429: it goes again before "b"
    assert _drain(queue) == ["a1", "b1", "a2"]


def test_no_group_means_no_entry() -> None:
    queue: RoundRobin[_Entry] = RoundRobin()
    queue.push(None, _Entry("x", 1))
    assert _drain(queue) == ["x"]
    assert queue.first() is None
