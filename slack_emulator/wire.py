"""The wire boundary: Slack-shaped JSON is a plain dict only here and in what crosses HTTP."""

from __future__ import annotations

import copy
from typing import Any, TypeAlias

JsonDict: TypeAlias = dict[str, Any]
StateValues: TypeAlias = dict[str, dict[str, JsonDict]]
"""`state.values` of a message or view: block_id -> action_id -> the element's current value."""


def clone(value: JsonDict) -> JsonDict:
    """A deep copy, so stored Slack JSON never aliases what an app or a test still holds."""
    return copy.deepcopy(value)


def clone_list(values: list[JsonDict]) -> list[JsonDict]:
    return copy.deepcopy(values)


def clone_state(values: StateValues) -> StateValues:
    return copy.deepcopy(values)
