"""Groups served in turn: each group's entries in their own order, one entry per group a round.

A channel's lane is shared by every agent; first come, first served across them lets one
agent's burst of 400 asks hold back another agent's one ask behind all 400. Here the groups
(agents) with work waiting take turns: the group served last goes behind every group that
waits, and a group arriving joins the back of the round, so a lone entry waits at most one
entry of each other group. Within a group, entries go lowest first (their `__lt__`).

Each group is a heap, and the round a deque of group names: push and pop cost O(log n) in the
group's size. An entry that left meanwhile (`gone`) stays where it is until it reaches the
front of its group, and is discarded then (each once: amortised O(log n)).
"""

from __future__ import annotations

import heapq
from collections import deque
from collections.abc import Callable, Iterator
from typing import Any, Generic, Protocol, TypeVar


class Entry(Protocol):
    """What a group holds: ordered within its group, and gone once it left the queue."""

    @property
    def gone(self) -> bool:
        """Left the queue before its turn (dropped, cancelled): discarded when reached."""
        ...

    def __lt__(self, other: Any, /) -> bool: ...


E = TypeVar("E", bound=Entry)
Group = str | None


class RoundRobin(Generic[E]):
    """Entries by group, the groups taking turns (see the module docstring)."""

    def __init__(self) -> None:
        self._groups: dict[Group, list[E]] = {}
        # Every group with entries is in the round exactly once, or is the one served last
        # (it rejoins the back when the next group is served, behind groups that came
        # meanwhile; it is remembered even with no entry left, as its next one comes).
        self._round: deque[Group] = deque()
        self._served: tuple[Group] | None = None

    def push(self, group: Group, entry: E) -> None:
        """Queue `entry` in `group` (a new group joins the back of the round)."""
        heap = self._groups.get(group)
        if heap is None:
            self._groups[group] = heap = []
            self._round.append(group)
        heapq.heappush(heap, entry)

    def push_first(self, group: Group, entry: E) -> None:
        """Queue `entry` in `group` and give the group the next turn: the entry just served
        could not be used (Slack said 429), so the turn it had is its own again."""
        if self._served == (group,):
            self._served = None
        elif group in self._groups:
            self._round.remove(group)  # (rare, and the round is one name per agent)
        self._groups.setdefault(group, [])
        self._round.appendleft(group)
        heapq.heappush(self._groups[group], entry)

    def first(self) -> E | None:
        """The entry whose turn is next, if any (it stays queued)."""
        while self._round:
            heap = self._groups[self._round[0]]
            if _clean(heap):
                return heap[0]
            del self._groups[self._round.popleft()]
        if self._served is not None:
            # (Kept though empty: its next entry still goes behind groups that come meanwhile.)
            heap = self._groups[self._served[0]]
            if _clean(heap):
                return heap[0]
        return None

    def pop(self) -> E | None:
        """Take the entry whose turn is next (as `first` says), its group then served."""
        head = self.first()
        if head is None:
            return None
        if self._round:
            group = self._round.popleft()
            if self._served is not None:
                last = self._served[0]
                if _clean(self._groups[last]):
                    self._round.append(last)
                else:
                    del self._groups[last]
            self._served = (group,)
        assert self._served is not None
        heapq.heappop(self._groups[self._served[0]])
        return head

    def entries(self) -> Iterator[E]:
        """Every entry still held (gone ones included), in no order."""
        for heap in self._groups.values():
            yield from heap

    def discard(self, leaves: Callable[[E], bool]) -> None:
        """Take out every entry `leaves` says should go (O(n): for shutting down)."""
        for heap in self._groups.values():
            heap[:] = [entry for entry in heap if not leaves(entry)]
            heapq.heapify(heap)


def _clean(heap: list[E]) -> bool:
    """Discard the gone entries at the front of `heap`; whether one remains."""
    while heap and heap[0].gone:
        heapq.heappop(heap)
    return bool(heap)
