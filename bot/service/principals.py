"""Who is calling the relay: the bearer token turned into a `Principal`.

Two kinds of token are accepted:
- `SLACK_QUESTIONS_RELAY_TOKEN`, the shared admin token of older set-ups: every ask, every
  agent id, every configured channel (and a start-up WARNING, since every agent holding it can
  see and withdraw every ask);
- agent credentials from the store (`python -m bot credentials create`), shaped
  `sqc_<id>_<secret>`: looked up by id, the secret's sha256 compared in constant time.

A credential is read from the store at most every `CACHE_SECONDS` per replica, so one created
after start works at once and a revoked one stops within that bound.
"""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Final

from pydantic import SecretStr

from bot.store import AskRecord, AskStore, Credential, CredentialLimits, of_agents

TOKEN_PREFIX: Final = "sqc"
CACHE_SECONDS: Final = 2.0
_ID = re.compile(r"^[0-9a-f]{12}$")


@dataclass(frozen=True)
class Principal:
    """A caller of the relay: what it may act as, where it may ask, and its limits."""

    admin: bool
    agents: frozenset[str] = frozenset()
    channels: tuple[str, ...] = ()  # empty: the configured channels
    limits: CredentialLimits | None = None  # None: no per-caller caps
    credential_id: str | None = None  # None: the shared admin token
    requester: str | None = None  # the person every ask of this credential is on behalf of

    @property
    def name(self) -> str:
        """How log lines and messages name it."""
        if self.credential_id is None:
            return "the admin token SLACK_QUESTIONS_RELAY_TOKEN"
        return f"credential {self.credential_id}"

    def may_act_as(self, agent_id: str | None) -> bool:
        """Whether asks under `agent_id` are this caller's to create: one of its agents, or
        a session under one (`ci/<session>`)."""
        return self.admin or of_agents(agent_id, self.agents)

    def owns(self, record: AskRecord) -> bool:
        """Whether this caller may read, wait on and withdraw `record`."""
        return self.may_act_as(record.agent_id)


ADMIN: Final = Principal(admin=True)


@dataclass(frozen=True)
class Refusal:
    """Why a request is not served: a relay error code and its message."""

    code: str
    message: str


def hash_secret(secret: str) -> str:
    """The sha256 a credential keeps instead of its secret."""
    return hashlib.sha256(secret.encode()).hexdigest()


def mint(
    *,
    agents: Iterable[str],
    channels: Iterable[str] = (),
    limits: CredentialLimits | None = None,
    label: str = "",
    admin: bool = False,
    requester: str | None = None,
    now: float,
) -> tuple[str, Credential]:
    """A new credential and its token (shown once: only the hash is stored)."""
    credential_id = secrets.token_hex(6)
    secret = secrets.token_urlsafe(32)
    credential = Credential(
        id=credential_id,
        secret_hash=hash_secret(secret),
        agents=tuple(dict.fromkeys(agents)),
        channels=tuple(dict.fromkeys(channels)),
        limits=limits or CredentialLimits(),
        label=label,
        admin=admin,
        requester=requester,
        created_at=now,
    )
    return f"{TOKEN_PREFIX}_{credential_id}_{secret}", credential


def split_token(token: str) -> tuple[str, str] | None:
    """`(id, secret)` of a credential token; None if it is not shaped like one."""
    prefix, _, rest = token.partition("_")
    credential_id, _, secret = rest.partition("_")
    if prefix != TOKEN_PREFIX or not _ID.match(credential_id) or not secret:
        return None
    return credential_id, secret


def principal_of(credential: Credential) -> Principal:
    """What a stored credential lets its holder do."""
    if credential.admin:
        return Principal(admin=True, credential_id=credential.id, requester=credential.requester)
    return Principal(
        admin=False,
        agents=frozenset(credential.agents),
        channels=credential.channels,
        limits=credential.limits,
        credential_id=credential.id,
        requester=credential.requester,
    )


class Principals:
    """Turns an `Authorization` header into a `Principal`, or a `Refusal`."""

    def __init__(
        self,
        store: AskStore,
        admin_token: SecretStr | None,
        *,
        cache_seconds: float = CACHE_SECONDS,
        monotonic: Callable[[], float] = time.monotonic,
    ) -> None:
        self._store = store
        self._admin = admin_token.get_secret_value().encode() if admin_token else None
        self._ttl = cache_seconds
        self._now = monotonic
        # id -> (credential, read at): only credentials that exist, so their number bounds it.
        self._cache: dict[str, tuple[Credential, float]] = {}
        self._any: tuple[bool, float] | None = None

    async def of(self, authorization: str) -> Principal | Refusal:
        """The caller a header names; a refusal if it names none (or the relay is off)."""
        scheme, _, given = authorization.partition(" ")
        token = given.strip() if scheme.lower() == "bearer" else ""
        # Constant time: a timing leak must not reveal the token byte by byte.
        if self._admin is not None and hmac.compare_digest(token.encode(), self._admin):
            return ADMIN
        parts = split_token(token)
        if parts is not None:
            credential = await self._credential(parts[0])
            if (
                credential is not None
                and credential.revoked_at is None
                and hmac.compare_digest(hash_secret(parts[1]), credential.secret_hash)
            ):
                return principal_of(credential)
        if self._admin is None and not await self._any_active():
            return Refusal(
                "RELAY_DISABLED",
                "the relay is disabled: create an agent credential with "
                "`python -m bot credentials create --agent ID` (or set "
                "SLACK_QUESTIONS_RELAY_TOKEN, which can see every ask)",
            )
        return Refusal("UNAUTHORIZED", "missing or wrong bearer token")

    async def _credential(self, credential_id: str) -> Credential | None:
        now = self._now()
        cached = self._cache.get(credential_id)
        if cached is not None and now - cached[1] < self._ttl:
            return cached[0]
        credential = await self._store.credential(credential_id)
        if credential is None:
            self._cache.pop(credential_id, None)
        else:
            self._cache[credential_id] = (credential, now)
        return credential

    async def _any_active(self) -> bool:
        now = self._now()
        if self._any is not None and now - self._any[1] < self._ttl:
            return self._any[0]
        found = any(c.revoked_at is None for c in await self._store.credentials())
        self._any = (found, now)
        return found


__all__ = [
    "ADMIN",
    "CACHE_SECONDS",
    "TOKEN_PREFIX",
    "Principal",
    "Principals",
    "Refusal",
    "hash_secret",
    "mint",
    "principal_of",
    "split_token",
]
