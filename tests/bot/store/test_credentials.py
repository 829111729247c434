"""Relay credentials in every store (memory, SQLite, PostgreSQL), and an agent's own asks."""

from __future__ import annotations

import pytest

from bot.service.principals import hash_secret, mint
from bot.store import AskRecord, AskState, AskStore, Credential, CredentialLimits
from provider import AskUserQuestionItem

from . import test_contract

store = test_contract.store  # the same three stores as the contract's tests

NAME = AskUserQuestionItem(id="name", question="Name the service")


def made(*agents: str, at: float = 1000.0) -> Credential:
    return mint(agents=agents, channels=("C1",), limits=CredentialLimits(max_pending=3), now=at)[1]


def ask(ask_id: str, agent_id: str | None, at: float) -> AskRecord:
    return AskRecord(id=ask_id, questions=[NAME], created_at=at, agent_id=agent_id)


async def test_an_added_credential_reads_back_equal_without_its_secret(store: AskStore) -> None:
    token, credential = mint(agents=("ci",), now=1000.0)
    await store.add_credential(credential)
    assert await store.credential(credential.id) == credential
    secret = token.split("_", 2)[2]
    assert credential.secret_hash == hash_secret(secret)
    assert secret not in credential.model_dump_json()


async def test_an_unknown_credential_id_has_no_credential(store: AskStore) -> None:
    assert await store.credential("0123456789ab") is None


async def test_credentials_list_oldest_first(store: AskStore) -> None:
    second, first = made("b", at=2000.0), made("a", at=1000.0)
    for credential in (second, first):
        await store.add_credential(credential)
    assert await store.credentials() == [first, second]


async def test_a_credential_id_is_stored_once(store: AskStore) -> None:
    credential = made("a")
    await store.add_credential(credential)
    with pytest.raises(ValueError, match=f"credential {credential.id} is already stored"):
        await store.add_credential(credential)


async def test_revoking_a_credential_keeps_it_listed_with_its_revocation_time(
    store: AskStore,
) -> None:
    credential = made("a")
    await store.add_credential(credential)
    revoked = await store.revoke_credential(credential.id, 1500.0)
    assert revoked == credential.model_copy(update={"revoked_at": 1500.0})
    assert await store.credential(credential.id) == revoked
    assert await store.credentials() == [revoked]


async def test_revoking_again_keeps_the_first_revocation_time(store: AskStore) -> None:
    credential = made("a")
    await store.add_credential(credential)
    await store.revoke_credential(credential.id, 1500.0)
    again = await store.revoke_credential(credential.id, 9000.0)
    assert again == credential.model_copy(update={"revoked_at": 1500.0})


async def test_revoking_an_unknown_credential_is_none(store: AskStore) -> None:
    assert await store.revoke_credential("0123456789ab", 1500.0) is None


async def test_recent_of_some_agents_lists_only_their_asks_newest_first(store: AskStore) -> None:
    for n, agent in enumerate(("a", "b", None, "a", "c"), start=1):
        await store.add(ask(f"x{n}", agent, at=1000.0 + n))
    assert [r.id for r in await store.recent(agents={"a", "c"})] == ["x5", "x4", "x1"]
    assert [r.id for r in await store.recent(agents=["b"], limit=1)] == ["x2"]
    assert await store.recent(agents=()) == []


async def test_recent_of_some_agents_in_one_state(store: AskStore) -> None:
    await store.add(ask("x1", "a", at=1001.0))
    await store.add(ask("x2", "b", at=1002.0))
    pending = await store.recent(state=AskState.PENDING, agents={"a"})
    assert [r.id for r in pending] == ["x1"]
    assert await store.recent(state=AskState.ANSWERED, agents={"a"}) == []


async def test_recent_of_an_agent_includes_its_sessions_and_no_look_alikes(
    store: AskStore,
) -> None:
    for n, agent in enumerate(("ci", "ci/s1", "ci-2", "CI/s2", "c_/x", "ci/s3"), start=1):
        await store.add(ask(f"x{n}", agent, at=1000.0 + n))
    assert [r.id for r in await store.recent(agents={"ci"})] == ["x6", "x2", "x1"]
    assert [r.id for r in await store.recent(agents={"c_"})] == ["x5"]
