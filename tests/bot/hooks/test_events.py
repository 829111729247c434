"""The hook's output models, spelled without loading the elicitation forms."""

from __future__ import annotations

from typing import get_args

from bot.hooks.events import ElicitActionName, HookOutput
from provider.elicitation_forms import ElicitAction, ElicitOutcome


def test_the_output_names_exactly_the_elicitation_actions_the_forms_define() -> None:
    assert set(get_args(ElicitActionName)) == {action.value for action in ElicitAction}


def test_an_elicitation_outcome_prints_its_action_and_content() -> None:
    outcome = ElicitOutcome(action=ElicitAction.ACCEPT, content={"name": "Ada"})
    assert HookOutput.elicited(outcome).to_wire() == {
        "hookSpecificOutput": {
            "hookEventName": "Elicitation",
            "action": "accept",
            "content": {"name": "Ada"},
        }
    }
