"""The Claude Code hook events we answer, and the JSON we answer them with (typed).

Field names follow Claude Code's hooks reference (docs/claude-code-hooks.md says which are
verified and which assumed). Claude Code adds fields over time, so inputs ignore keys they do
not name; outputs are exactly what the reference documents. Each model is built on first
use (`defer_build`): the hook starts before every gated tool call, and one run uses few of them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, JsonValue, StrictBool, StrictStr

if TYPE_CHECKING:
    # Loaded only when an elicitation is answered: a PreToolUse does not pay for its forms.
    from provider.elicitation_forms import ElicitOutcome

NonEmpty = Annotated[StrictStr, Field(min_length=1)]


class HookInput(BaseModel):
    """Fields every hook event carries (the ones we read)."""

    model_config = ConfigDict(frozen=True, extra="ignore", defer_build=True)

    session_id: NonEmpty
    cwd: StrictStr = ""
    transcript_path: StrictStr | None = None
    permission_mode: StrictStr | None = None


class PreToolUse(HookInput):
    """Before a tool runs: its name and input (`tool_input`'s shape depends on the tool)."""

    hook_event_name: Literal["PreToolUse"]
    tool_name: NonEmpty
    tool_input: dict[str, JsonValue]
    tool_use_id: StrictStr | None = None


class Elicitation(HookInput):
    """An MCP server asks the user for input (form mode), or to open a URL (URL mode)."""

    hook_event_name: Literal["Elicitation"]
    mcp_server_name: NonEmpty
    message: StrictStr
    mode: Literal["form", "url"] | None = None
    url: StrictStr | None = None
    elicitation_id: StrictStr | None = None
    requested_schema: dict[str, Any] | None = None


HookEvent = Annotated[PreToolUse | Elicitation, Field(discriminator="hook_event_name")]


class ToolInput(BaseModel):
    """A tool input we read, tolerant of fields Claude Code adds."""

    model_config = ConfigDict(frozen=True, extra="ignore", populate_by_name=True, defer_build=True)


class ClaudeOption(ToolInput):
    """One option of an `AskUserQuestion` question."""

    label: NonEmpty
    description: StrictStr | None = None


class ClaudeQuestion(ToolInput):
    """One `AskUserQuestion` question: its text is also its key in `answers`."""

    question: NonEmpty
    header: StrictStr | None = None
    options: list[ClaudeOption] = Field(default_factory=list)
    multi_select: StrictBool = Field(default=False, alias="multiSelect")


class AskUserQuestionInput(ToolInput):
    """`AskUserQuestion`'s `tool_input`."""

    questions: list[ClaudeQuestion] = Field(min_length=1)


class ExitPlanModeInput(ToolInput):
    """`ExitPlanMode`'s `tool_input`: Claude Code injects the plan from its plan file."""

    plan: NonEmpty
    plan_file_path: StrictStr | None = Field(default=None, alias="planFilePath")


PermissionDecision = Literal["allow", "deny", "ask"]
# `provider.elicitation_forms.ElicitAction`'s values, spelled here so that every hook's output
# model builds without loading the elicitation forms (a test keeps the two the same).
ElicitActionName = Literal["accept", "decline", "cancel"]


class OutputModel(BaseModel):
    """Hook output: camelCase on the wire, absent fields left out."""

    model_config = ConfigDict(
        frozen=True, extra="forbid", serialize_by_alias=True, defer_build=True
    )

    def to_wire(self) -> dict[str, Any]:
        """The JSON object printed on stdout."""
        return self.model_dump(mode="json", exclude_none=True, by_alias=True)


class PreToolUseDecision(OutputModel):
    """`hookSpecificOutput` of a PreToolUse answer."""

    hook_event_name: Literal["PreToolUse"] = Field(default="PreToolUse", alias="hookEventName")
    permission_decision: PermissionDecision = Field(alias="permissionDecision")
    permission_decision_reason: str | None = Field(default=None, alias="permissionDecisionReason")
    updated_input: dict[str, JsonValue] | None = Field(default=None, alias="updatedInput")


class ElicitationDecision(OutputModel):
    """`hookSpecificOutput` of an Elicitation answer."""

    hook_event_name: Literal["Elicitation"] = Field(default="Elicitation", alias="hookEventName")
    action: ElicitActionName
    content: dict[str, JsonValue] | None = None


class HookOutput(OutputModel):
    """What the hook prints: `{"hookSpecificOutput": {...}}`."""

    hook_specific_output: PreToolUseDecision | ElicitationDecision = Field(
        alias="hookSpecificOutput"
    )

    @classmethod
    def decide(
        cls,
        decision: PermissionDecision,
        reason: str | None = None,
        updated_input: dict[str, JsonValue] | None = None,
    ) -> HookOutput:
        """A PreToolUse permission decision."""
        return cls(
            hookSpecificOutput=PreToolUseDecision(
                permissionDecision=decision,
                permissionDecisionReason=reason,
                updatedInput=updated_input,
            )
        )

    @classmethod
    def elicited(cls, outcome: ElicitOutcome) -> HookOutput:
        """An Elicitation result."""
        wire = outcome.to_wire()  # JSON-ready: the content's values are JSON values
        content: dict[str, JsonValue] | None = wire.get("content")
        return cls(hookSpecificOutput=ElicitationDecision(action=wire["action"], content=content))
