"""Claude Code's hook events answered by people in Slack, through the relay.

- `AskUserQuestion` → the same questions in Slack → `allow` with `updatedInput` = the original
  input plus `answers` (question text → chosen label; several labels and "Other" text joined
  with ", ", as Claude Code's docs describe).
- `ExitPlanMode` → a plan review (the channel's review policy applies) → `allow` only when
  approved (`updatedInput` without the `plan`/`planFilePath` Claude Code injected; an
  amended plan as `plan`, and written to the plan file, which Claude Code reads); a decline or requested changes → `deny` quoting the reviewer, so Claude keeps
  planning; "Discuss in thread" → `deny` pointing at the thread; withdrawn or expired → `ask`.
- any other tool the user's matcher sends here → "Allow Bash: `…`?" → `allow` / `deny`
  (after "Edit and allow", `allow` with `updatedInput` = the edited input).
- `Elicitation` → the MCP form as questions → `{action, content}`.

The rule this module keeps: nothing but a person's explicit "Allow" or "Approve", in an
answer that answers exactly the question asked, becomes `allow`. For a *gated* tool (a tool
approval or a plan review) every other ending — timeouts, withdrawals, failures — becomes the
hook's failure decision (`deny` by default, `ask` where configured), never a fall-through to
Claude Code's own permission rules. `AskUserQuestion` and elicitations are not gates: they
fall back to Claude Code's own dialog.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Final, Protocol, TypeVar

from pydantic import JsonValue, ValidationError

from bot.hooks.events import (
    AskUserQuestionInput,
    Elicitation,
    ExitPlanModeInput,
    HookEvent,
    HookOutput,
    PermissionDecision,
    PreToolUse,
)
from provider import (
    Agent,
    AskUserQuestionAnswer,
    AskUserQuestionRequest,
    ErrorCode,
    ToolApprovalIntent,
    UserQuestionError,
)
from provider.relay_client import error_of
from provider.relay_wire import AskState, AskView
from provider.types import (
    AskUserQuestionAnswerItem,
    AskUserQuestionItem,
    AskUserQuestionOption,
    field_errors,
)

AGENT_PREFIX = "Claude Code"
APPROVE = "Approve"
KEEP_PLANNING = "Keep planning"
ALLOW = "Allow"
DENY = "Deny"
# `decided_by` of an ask a policy rule decided before anyone was asked (bot/asks/automatic.py).
RULE_ACTOR = "rule:"
GRANT_ACTOR = "grant:"  # … a reviewer's standing grant decided
SUMMARY_LIMIT = 80
# The input field that says what a tool is about to do, by tool (first present wins).
SUMMARY_FIELDS = ("command", "file_path", "notebook_path", "url", "pattern", "query", "prompt")
# ExitPlanMode input Claude Code injects from the plan file: any `plan` sent back in
# `updatedInput` is read as the user's edit ("## Approved Plan (edited by user):"), so an
# approval sends neither back and Claude Code reads the plan from disk (issue 24, finding 2).
PLAN_INJECTED = frozenset({"plan", "planFilePath"})
FENCE = "```"
BROKEN_FENCE = "``\u200b`"  # looks the same, but no longer closes a code block

InputT = TypeVar("InputT", AskUserQuestionInput, ExitPlanModeInput)


class HookError(Exception):
    """The event cannot be answered from Slack; the message says why (it goes to stderr)."""


class Relay(Protocol):
    """What the hook needs of `provider.RelayProvider`."""

    async def ask(self, request: AskUserQuestionRequest) -> AskUserQuestionAnswer:
        """The answer, or the seam error the ask ended with."""
        ...

    async def outcome(self, request: AskUserQuestionRequest) -> AskView:
        """How the ask ended, and who decided."""
        ...


def agent_of(event: HookEvent, under: str | None = None, requester: str | None = None) -> Agent:
    """The asking agent: one per Claude Code session, named after its project directory;
    `under` (SLACK_QUESTIONS_AGENT_ID): its id is `under/<session>`, a session of the agent
    a relay credential names; `requester` (SLACK_QUESTIONS_REQUESTER): the Slack user it
    acts for."""
    project = Path(event.cwd).name or event.cwd or "session"
    session = f"{under}/{event.session_id}" if under else event.session_id
    return Agent(session, name=f"{AGENT_PREFIX} · {project}", requester=requester)


def gated(tool_name: str | None) -> bool:
    """Whether a PreToolUse of `tool_name` is a gate: only a person's Allow/Approve may let
    it run. Everything but `AskUserQuestion` is (None: a tool we could not even read)."""
    return tool_name != "AskUserQuestion"


def failed_closed(
    tool_name: str | None, why: str, on_failure: PermissionDecision = "deny"
) -> HookOutput:
    """The answer for a gated tool when no person could decide: `deny` (the model reads the
    reason) or `ask` (Claude Code asks its local user) — never silence, which Claude Code
    would read as "no opinion" and run the tool under its own rules."""
    tool = tool_name or "the tool"
    if on_failure == "ask":
        return HookOutput.decide(
            "ask", f"Slack approval could not be obtained ({why}); decide here instead."
        )
    return HookOutput.decide(
        "deny",
        f"{tool} was not run: no person approved it in Slack ({why}). "
        "Do not retry it or work around it without a person's approval.",
    )


async def answer(
    event: HookEvent,
    relay: Relay,
    *,
    under: str | None = None,
    requester: str | None = None,
    on_failure: PermissionDecision = "deny",
) -> HookOutput:
    """Ask people about `event` and return the hook's answer."""
    agent = agent_of(event, under, requester)
    if isinstance(event, Elicitation):
        return await _elicitation(event, relay, agent)
    match event.tool_name:
        case "AskUserQuestion":
            return await _questions(event, relay, agent)
        case "ExitPlanMode":
            return await _plan(event, relay, agent, on_failure)
        case _:
            return await _approval(event, relay, agent, on_failure)


def gave_up(event: HookEvent, why: str, on_failure: PermissionDecision = "deny") -> HookOutput:
    """The answer when nobody decided in time: never an approval. A gated tool gets the
    failure decision; a question goes back to Claude Code's own dialog."""
    if isinstance(event, Elicitation):
        from provider.elicitation_forms import ElicitAction, ElicitOutcome

        return HookOutput.elicited(ElicitOutcome(action=ElicitAction.CANCEL))
    if gated(event.tool_name):
        return failed_closed(event.tool_name, f"nobody answered: {why}", on_failure)
    return HookOutput.decide("ask", f"Nobody answered in Slack ({why}); decide here instead.")


def _only_item(view: AskView, question_id: str) -> AskUserQuestionAnswerItem:
    """The one answer item to `question_id`; anything else is not an answer to what was
    asked, and must not decide a gate (a relay, or a proxy, could send anything)."""
    assert view.answer is not None
    items = view.answer.answers
    if len(items) != 1 or items[0].id != question_id:
        raise HookError(
            f"the relay's answer does not answer the question asked: expected one answer to "
            f"{question_id!r}, got {[item.id for item in items]}"
        )
    return items[0]


def _read(model: type[InputT], event: PreToolUse) -> InputT:
    try:
        return model.model_validate(event.tool_input)
    except ValidationError as error:
        problems = "; ".join(f"{where}: {what}" for where, what in field_errors(error))
        raise HookError(
            f"{event.tool_name} input is not what Claude Code sends: {problems}"
        ) from error


def _request(agent: Agent, *questions: AskUserQuestionItem) -> AskUserQuestionRequest:
    return AskUserQuestionRequest(questions=list(questions), agent=agent)


def _thread(agent: Agent) -> str:
    return f"the Slack thread “{agent.name}”"


def _who(view: AskView) -> str:
    if view.decided_by and view.decided_by.startswith(RULE_ACTOR):
        return f"rule `{view.decided_by[len(RULE_ACTOR) :]}` of the Slack review policy"
    if view.decided_by and view.decided_by.startswith(GRANT_ACTOR):
        return f"grant `{view.decided_by[len(GRANT_ACTOR) :]}` made in Slack"
    return f"Slack user {view.decided_by}" if view.decided_by else "a reviewer"


def _unsettled(
    event: PreToolUse, view: AskView, agent: Agent, on_failure: PermissionDecision = "deny"
) -> HookOutput:
    """An ask that ended without an answer: withdrawn/expired → gave up; discussion → deny."""
    error = error_of(view)
    if error.code is ErrorCode.ASK_ABORTED:
        return gave_up(event, error.message, on_failure)
    if error.code is ErrorCode.ASK_CANCELLED:
        return HookOutput.decide(
            "deny",
            f"{_who(view)} chose to discuss this in {_thread(agent)} instead of deciding. "
            "Do not go ahead: wait for the outcome of that discussion.",
        )
    raise HookError(f"the ask failed in Slack: {error.code}: {error.message}")


async def _questions(event: PreToolUse, relay: Relay, agent: Agent) -> HookOutput:
    tool_input = _read(AskUserQuestionInput, event)
    try:
        items = [
            AskUserQuestionItem(
                id=f"q{number}",  # stable: the question's place in Claude's list
                question=question.question,
                header=question.header or None,
                options=[
                    AskUserQuestionOption(label=o.label, description=o.description)
                    for o in question.options
                ]
                or None,
                multi_select=question.multi_select,
            )
            for number, question in enumerate(tool_input.questions, start=1)
        ]
    except ValidationError as error:
        raise HookError(f"AskUserQuestion input cannot be asked: {error}") from error
    view = await relay.outcome(_request(agent, *items))
    if view.state is not AskState.ANSWERED or view.answer is None:
        return _unsettled(event, view, agent)
    asked = {item.id for item in items}
    stray = [item.id for item in view.answer.answers if item.id not in asked]
    if stray:
        raise HookError(f"the relay's answer names questions that were not asked: {stray}")
    by_id = {item.id: item for item in view.answer.answers}
    answers: dict[str, JsonValue] = {}
    for item, question in zip(items, tool_input.questions, strict=True):
        given = by_id.get(item.id)
        chosen = [*given.selected, *([given.custom] if given.custom else [])] if given else []
        if chosen:  # a skipped question is left out: Claude sees it unanswered
            answers[question.question] = ", ".join(chosen)
    return HookOutput.decide(
        "allow",
        f"answered in Slack by {_who(view)}",
        {**event.tool_input, "answers": answers},
    )


async def _plan(
    event: PreToolUse, relay: Relay, agent: Agent, on_failure: PermissionDecision
) -> HookOutput:
    tool_input = _read(ExitPlanModeInput, event)
    review = AskUserQuestionItem.model_validate(
        {
            "id": "plan",
            "question": "May Claude Code carry out this plan?",
            "header": f"Plan review · {agent.name}",
            "detail": tool_input.plan,
            "options": [{"label": APPROVE}, {"label": KEEP_PLANNING}],
            "intent": {"kind": "plan-review", "approve": APPROVE},
        }
    )
    view = await relay.outcome(_request(agent, review))
    if view.state is not AskState.ANSWERED or view.answer is None:
        return _unsettled(event, view, agent, on_failure)
    item = _only_item(view, review.id)
    if item.selected == [APPROVE] and not item.custom:
        # Claude Code needs updatedInput paired with allow for ExitPlanMode: the input as
        # sent, less what it injected (sent back, it would read as an edit).
        unedited = {k: v for k, v in event.tool_input.items() if k not in PLAN_INJECTED}
        amended = (item.updated_input or {}).get("plan")
        if isinstance(amended, str) and amended.strip():
            # Claude Code 2.1.332 reads the approved plan from its plan file, not from
            # `updatedInput` (tests/clients): the amendment goes there too. Older versions
            # read `plan` in `updatedInput` as the user's edit, which this is.
            _write_plan(tool_input.plan_file_path, amended)
            return HookOutput.decide(
                "allow",
                f"plan approved in Slack by {_who(view)}, who amended it",
                {**unedited, "plan": amended},
            )
        if item.updated_input is not None:
            raise HookError("the relay's plan edit is not a plan: refusing to approve it")
        return HookOutput.decide("allow", f"plan approved in Slack by {_who(view)}", unedited)
    if item.custom:
        reason = (
            f"{_who(view)} requested changes to the plan in Slack: “{item.custom}”. "
            "Revise the plan with this in mind and present it again."
        )
    else:
        chosen = item.selected[0] if item.selected else "no approval"
        reason = (
            f"{_who(view)} did not approve the plan in Slack (chose “{chosen}”). "
            "Keep planning and present a revised plan."
        )
    return HookOutput.decide("deny", reason)


async def _approval(
    event: PreToolUse, relay: Relay, agent: Agent, on_failure: PermissionDecision
) -> HookOutput:
    question = AskUserQuestionItem(
        id="approve",
        question=f"Allow {event.tool_name}: `{_summary(event)}`?",
        detail=_shown_input(event),
        options=[AskUserQuestionOption(label=ALLOW), AskUserQuestionOption(label=DENY)],
        # The service chooses the tool-approval policy from this intent.
        intent=ToolApprovalIntent(
            allow=ALLOW, tool=event.tool_name, input=event.tool_input, session=event.session_id
        ),
    )
    view = await relay.outcome(_request(agent, question))
    if view.state is not AskState.ANSWERED or view.answer is None:
        return _unsettled(event, view, agent, on_failure)
    item = _only_item(view, question.id)
    ruled = bool(view.decided_by and view.decided_by.startswith((RULE_ACTOR, GRANT_ACTOR)))
    if item.selected == [ALLOW] and not item.custom:
        if item.updated_input is not None:
            return HookOutput.decide(
                "allow",
                f"allowed in Slack by {_who(view)} with the input edited",
                _edited(event.tool_input, item.updated_input),
            )
        return HookOutput.decide("allow", f"allowed {'' if ruled else 'in Slack '}by {_who(view)}")
    if ruled:
        # Nobody was asked: the rule refused it, and its reason is the policy's own words.
        return HookOutput.decide(
            "deny",
            f"{event.tool_name} was denied by {_who(view)}: {item.custom or 'no reason given'}. "
            "Do not retry it or work around it.",
        )
    if item.custom:
        return HookOutput.decide(
            "deny",
            f"{_who(view)} did not allow {event.tool_name} in Slack and said: “{item.custom}”",
        )
    return HookOutput.decide("deny", f"{_who(view)} denied {event.tool_name} in Slack.")


def _write_plan(plan_file: str | None, plan: str) -> None:
    """Put the amended plan in the plan file Claude Code named, if it names one: only an
    existing `.claude/plans/*.md` file, replaced whole (a failure refuses the approval rather
    than let the unamended plan run)."""
    if plan_file is None:
        return
    path = Path(plan_file)
    if not (
        path.is_absolute()
        and path.suffix == ".md"
        and path.parent.name == "plans"
        and path.parent.parent.name == ".claude"
        and path.is_file()
    ):
        raise HookError(
            f"the plan file {plan_file!r} is not a Claude Code plan file: refusing to approve "
            "an amended plan Claude Code would not read"
        )
    temporary = path.with_name(f".{path.name}.amended")
    try:
        temporary.write_text(plan, encoding="utf-8")
        temporary.replace(path)
    except OSError as error:
        raise HookError(f"could not write the amended plan to {plan_file!r}: {error}") from error


def _edited(asked: dict[str, JsonValue], edited: dict[str, JsonValue]) -> dict[str, JsonValue]:
    """The reviewer's edit, if it keeps the input's shape (the same fields, each of the same
    JSON type); a relay or proxy sending anything else gets no tool run."""
    from provider.contract import json_kind  # loaded only for an edit

    if set(edited) != set(asked) or any(
        json_kind(value) != json_kind(asked[name]) for name, value in edited.items()
    ):
        raise HookError(
            "the relay's edited input does not keep the tool's fields and their types: "
            "refusing to run it"
        )
    return edited


def _summary(event: PreToolUse) -> str:
    """One short line saying what the tool will do, safe inside an inline code span."""
    value = next(
        (event.tool_input[k] for k in SUMMARY_FIELDS if isinstance(event.tool_input.get(k), str)),
        None,
    )
    text = value if isinstance(value, str) else json.dumps(event.tool_input, ensure_ascii=False)
    lines = text.strip().splitlines() or [""]
    line = lines[0].replace("`", "'")  # a backtick would end the code span early
    if len(line) > SUMMARY_LIMIT or len(lines) > 1:
        line = line[: SUMMARY_LIMIT - 1].rstrip() + "…"
    return line or event.tool_name


# Input fields that weaken a guard when set: each is called out on a line of its own.
WEAKENING: Final = {
    "dangerouslyDisableSandbox": "runs outside Claude Code's sandbox",
    "run_in_background": "keeps running in the background after it is allowed",
    "as_user": "runs as another user",
    "user": "runs as another user",
    "sudo": "runs with elevated privileges",
}


def _shown_input(event: PreToolUse) -> str:
    """Every field of the input, named: the command in a code block, Claude's description
    labelled as Claude's, the other fields as JSON, guard-weakening ones called out (`allow`
    covers the whole input, so the reviewer must see all of it). A ``` inside is broken so it
    cannot end the block."""
    fields = dict(event.tool_input)
    command = fields.pop("command", None)
    lines: list[str] = []
    description = fields.pop("description", None) if isinstance(command, str) else None
    if isinstance(description, str) and description:
        lines.append(f"Claude's description (not checked): {description}")
    elif description is not None:
        fields["description"] = description
    for key, risk in WEAKENING.items():
        value = event.tool_input.get(key)
        if value not in (None, False, ""):
            lines.append(f"WARNING: {key} = {json.dumps(value, ensure_ascii=False)}: {risk}")
    if isinstance(command, str):
        lines.append(_code(command))
        if fields:
            lines.append("Other input fields:")
            lines.append(_code(json.dumps(fields, indent=2, sort_keys=True, ensure_ascii=False)))
    else:
        if command is not None:
            fields["command"] = command
        lines.append(_code(json.dumps(fields, indent=2, sort_keys=True, ensure_ascii=False)))
    return "\n".join(lines)


def _code(body: str) -> str:
    return f"{FENCE}\n{body.replace(FENCE, BROKEN_FENCE)}\n{FENCE}"


async def _elicitation(event: Elicitation, relay: Relay, agent: Agent) -> HookOutput:
    # An elicitation's modules are loaded only for one: a tool approval does not pay for them.
    from provider.elicitation import URL_MODE_REFUSED, elicit
    from provider.elicitation_forms import ElicitationForm, FormError

    if event.mode == "url":
        raise HookError(URL_MODE_REFUSED)
    try:
        form = ElicitationForm.from_schema(
            event.message, event.requested_schema, asker=event.mcp_server_name
        )
    except FormError as error:
        raise HookError(f"cannot ask {event.mcp_server_name}'s form in Slack: {error}") from error
    try:
        outcome = await elicit(relay.ask, form, agent=agent)
    except UserQuestionError as error:
        raise HookError(f"the ask failed in Slack: {error.code}: {error.message}") from error
    return HookOutput.elicited(outcome)
