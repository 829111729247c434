"""Defensive parsing for listeners: a payload we cannot read is logged, never raised."""

from __future__ import annotations

import logging
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from bot.block_ids import Ref, ViewMeta
from bot.payloads import Action

log = logging.getLogger(__name__)

M = TypeVar("M", bound=BaseModel)


def parse(model: type[M], body: dict[str, Any]) -> M | None:
    """`body` as `model`, or None (logged) when Slack sent something we do not understand."""
    try:
        return model.model_validate(body)
    except ValidationError as error:
        log.warning("ignoring a %s we cannot read: %s", model.__name__, error)
        return None


def ref_of(action: Action) -> Ref | None:
    """The ask reference a button value or a picked option carries."""
    value = action.value
    if value is None and action.selected_option is not None:
        value = action.selected_option.value
    try:
        return Ref.decode(value or "")
    except ValueError:
        log.warning("ignoring action %s with value %r", action.action_id, value)
        return None


def meta_of(private_metadata: str) -> ViewMeta | None:
    """Our modal's private_metadata, or None for a view that is not ours."""
    try:
        return ViewMeta.model_validate_json(private_metadata)
    except ValidationError:
        log.warning("ignoring a view with metadata %r", private_metadata[:100])
        return None
