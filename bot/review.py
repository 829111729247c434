"""Review policies for plan reviews: who reviews, how many approvals, reminders and expiry.

Configured per channel (a default plus overrides), in code or in a TOML file:

    [default]
    approvals = 1

    [channels.C0123456789]
    reviewers = ["U0123ABCD", "S0456EFGH"]   # users and user groups
    approvals = 2
    remind_after = "2h"                       # mention the reviewers after this long
    expire_after = "1d"                       # then end the review unapproved
"""

from __future__ import annotations

import re
import tomllib
from pathlib import Path
from typing import Annotated

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, ValidationError, model_validator

_DURATION = re.compile(r"^(\d+(?:\.\d+)?)\s*([smhd]?)$")
_UNIT_SECONDS = {"": 1, "s": 1, "m": 60, "h": 3600, "d": 86400}
_ID = re.compile(r"^[UWS][A-Z0-9]{2,}$")


def _seconds(value: object) -> object:
    if isinstance(value, str):
        match = _DURATION.match(value.strip().lower())
        if match is None:
            raise ValueError(f"{value!r} is not a duration like 90s, 15m, 2h or 1d")
        return float(match.group(1)) * _UNIT_SECONDS[match.group(2)]
    return value


Duration = Annotated[float, BeforeValidator(_seconds), Field(gt=0)]


class ReviewPolicy(BaseModel):
    """How plans posted in one channel are reviewed."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    reviewers: tuple[str, ...] = ()  # empty: whoever may answer questions there
    approvals: int = Field(default=1, ge=1, le=20)
    remind_after: Duration | None = None
    expire_after: Duration | None = None

    @model_validator(mode="after")
    def _check(self) -> ReviewPolicy:
        bad = [r for r in self.reviewers if not _ID.match(r)]
        if bad:
            raise ValueError(f"reviewers must be user (U…/W…) or group (S…) ids, not {bad}")
        if (
            self.remind_after is not None
            and self.expire_after is not None
            and self.remind_after >= self.expire_after
        ):
            raise ValueError("remind_after must come before expire_after")
        return self


class ReviewPolicies(BaseModel):
    """A default policy, and overrides by channel id."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    default: ReviewPolicy = ReviewPolicy()
    channels: dict[str, ReviewPolicy] = Field(default_factory=dict)

    def for_channel(self, channel: str | None) -> ReviewPolicy:
        """The policy of `channel` (the default when it has none)."""
        return self.channels.get(channel or "", self.default)


class PolicyError(Exception):
    """The policy file cannot be used; the message says where and why."""


def load_policies(path: Path) -> ReviewPolicies:
    """Read a TOML policy file."""
    try:
        data = tomllib.loads(path.read_text())
    except OSError as error:
        raise PolicyError(f"cannot read review policy {path}: {error.strerror}") from error
    except tomllib.TOMLDecodeError as error:
        raise PolicyError(f"review policy {path} is not valid TOML: {error}") from error
    try:
        return ReviewPolicies.model_validate(data)
    except ValidationError as error:
        problems = "; ".join(
            f"{'.'.join(str(p) for p in e['loc'])}: {e['msg']}" for e in error.errors()
        )
        raise PolicyError(f"review policy {path}: {problems}") from error
