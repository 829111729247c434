"""AgentRegistry: liveness by identity, ownership, roots."""

from __future__ import annotations

import pytest

from provider import Agent, AgentRegistry


def test_get_returns_the_live_object() -> None:
    registry = AgentRegistry()
    agent = Agent("a")
    registry.enter(agent)
    assert registry.get("a") is agent


def test_detach_is_idempotent() -> None:
    registry = AgentRegistry()
    agent = Agent("a")
    detach = registry.enter(agent)
    detach()
    detach()
    assert registry.get("a") is None


def test_a_stale_detach_leaves_a_re_entered_agent_live() -> None:
    registry = AgentRegistry()
    agent = Agent("a")
    stale = registry.enter(agent)
    registry.enter(agent)
    stale()
    assert registry.get("a") is agent


def test_an_equal_id_on_another_object_is_not_live() -> None:
    registry = AgentRegistry()
    registry.enter(Agent("a"))
    assert not registry.is_live(Agent("a"))


def test_another_object_cannot_take_a_live_id() -> None:
    registry = AgentRegistry()
    registry.enter(Agent("a"))
    with pytest.raises(ValueError, match="another live agent already has id 'a'"):
        registry.enter(Agent("a"))


def test_roots_are_unowned_live_agents_in_registration_order() -> None:
    registry = AgentRegistry()
    first, child, second = Agent("first"), Agent("child"), Agent("second")
    registry.enter(first)
    registry.enter(child, owner=first)
    registry.enter(second)
    assert registry.roots() == [first, second]


def test_an_agent_whose_owner_detached_is_a_root() -> None:
    registry = AgentRegistry()
    parent, child = Agent("parent"), Agent("child")
    detach_parent = registry.enter(parent)
    registry.enter(child, owner=parent)
    detach_parent()
    assert registry.owner_of(child) is None
    assert registry.roots() == [child]


def test_a_child_re_entered_without_owner_becomes_a_root() -> None:
    registry = AgentRegistry()
    parent, child = Agent("parent"), Agent("child")
    registry.enter(parent)
    registry.enter(child, owner=parent)
    registry.enter(child)
    assert registry.owner_of(child) is None
