"""What a person does at the page, and how it becomes what Slack would send the app.

The page's script posts one `Act` per click, pick, keystroke-draft, submit, close, message or
command. `perform` finds the surface it was done on and does it through the emulator's people
API (`emu.person(user)`), which signs and delivers Slack's own payload and waits for the ack —
the same path the offline terminal takes. The page never talks to the app.
"""

from __future__ import annotations

from typing import Annotated, Final, Literal, TypeAlias

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter

from slack_emulator import Delivery, Ephemeral, Message, Person, SlackEmulator, View

REQUIRED: Final = "Please complete this required field."
"""What Slack's client says under a required input left empty at Submit (it sends nothing)."""


class _Act(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    user: str = Field(min_length=1, description="who acts: a person's user id")


class SurfaceRef(BaseModel):
    """The message, ephemeral message or view an element is on."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    kind: Literal["message", "ephemeral", "view"]
    channel: str = ""
    id: str = Field(min_length=1)


class ElementAct(_Act):
    """Use one element: click a button, pick in a menu, tick boxes, choose a radio, type."""

    do: Literal["click", "select", "check", "choose", "type"]
    surface: SurfaceRef
    block_id: str = Field(min_length=1)
    action_id: str = Field(min_length=1)
    value: str | None = None
    values: list[str] | None = None
    text: str | None = None


class ViewAct(_Act):
    """Press a modal's Submit or its close button."""

    do: Literal["submit", "close"]
    view_id: str = Field(min_length=1)


class PostAct(_Act):
    """Post a message in a channel, or a reply in a thread (`thread_ts`)."""

    do: Literal["post"]
    channel: str = Field(min_length=1)
    thread_ts: str | None = None
    text: str = Field(min_length=1)


class CommandAct(_Act):
    """Run a slash command in a channel."""

    do: Literal["command"]
    channel: str = Field(min_length=1)
    command: str = Field(pattern=r"^/[a-z0-9_\-]{1,31}$")
    text: str = ""


class HomeAct(_Act):
    """Open the app's Home tab."""

    do: Literal["open_home"]


Act: TypeAlias = Annotated[
    ElementAct | ViewAct | PostAct | CommandAct | HomeAct, Field(discriminator="do")
]
ACT: TypeAdapter[ElementAct | ViewAct | PostAct | CommandAct | HomeAct] = TypeAdapter(Act)


class ActResult(BaseModel):
    """What happened: whether the app heard of it, and whether it acknowledged in time;
    for a Submit Slack's client refused, the required inputs left empty (block ids)."""

    delivered: bool
    acked: bool
    status: int | None = None
    unfilled: list[str] = []


async def perform(
    emu: SlackEmulator, act: ElementAct | ViewAct | PostAct | CommandAct | HomeAct
) -> ActResult:
    """Do `act` as the person it names. Raises LookupError for what is not there (any more),
    ValueError for what Slack would not let the person do."""
    user = emu.workspace.users.get(act.user)
    if user is None or user.is_bot:
        raise LookupError(f"no person {act.user!r} in the workspace")
    person = emu.person(act.user)
    delivery: Delivery | None
    if isinstance(act, ElementAct):
        delivery = await _use(person, _surface(emu, act.user, act.surface), act)
    elif isinstance(act, ViewAct):
        view = _top_view(emu, act.user, act.view_id)
        if act.do == "submit" and (unfilled := unfilled_inputs(view)):
            # Slack's client checks required inputs itself and sends nothing: the person
            # sees the error under each field, the app never hears of it.
            return ActResult(delivered=False, acked=False, unfilled=unfilled)
        delivery = await (person.submit(view) if act.do == "submit" else person.close(view))
    elif isinstance(act, PostAct):
        if act.thread_ts:
            await person.reply(act.channel, act.thread_ts, act.text)
        else:
            await person.say(act.channel, act.text)
        delivery = None
    elif isinstance(act, CommandAct):
        delivery = await person.command(act.command, act.text, channel=act.channel)
    else:
        delivery = await person.open_home()
    if delivery is None:
        return ActResult(delivered=False, acked=False)
    return ActResult(
        delivered=True, acked=delivery.acked and delivery.in_time, status=delivery.status
    )


async def _use(
    person: Person, target: Message | Ephemeral | View, act: ElementAct
) -> Delivery | None:
    ids = {"block_id": act.block_id, "action_id": act.action_id}
    if act.do == "click":
        return await person.click(target, **ids)
    if act.do == "select":
        return await person.select(target, **ids, value=act.value, values=act.values)
    if act.do == "check":
        return await person.check(target, **ids, values=act.values or [])
    if act.do == "choose":
        if act.value is None:
            raise ValueError("choose needs the value of the radio button")
        return await person.choose(target, **ids, value=act.value)
    if act.text is None:
        raise ValueError("type needs the text")
    return await person.type(target, **ids, text=act.text)


def _surface(emu: SlackEmulator, user: str, ref: SurfaceRef) -> Message | Ephemeral | View:
    if ref.kind == "message":
        return emu.message(ref.channel, ref.id)
    if ref.kind == "ephemeral":
        found = next((e for e in emu.ephemerals(user) if e.ts == ref.id), None)
        if found is None:
            raise LookupError(f"the message only you could see ({ref.id}) is gone")
        return found
    views = [*emu.views(user), *([home] if (home := emu.home(user)) else [])]
    view = next((v for v in views if v.id == ref.id), None)
    if view is None:
        raise LookupError(f"view {ref.id} is not open any more")
    return view


def unfilled_inputs(view: View) -> list[str]:
    """The block ids of `view`'s required inputs the person left empty, in order."""
    unfilled = []
    for block in view.blocks:
        if block.get("type") != "input" or block.get("optional"):
            continue
        element = block.get("element") or {}
        entry = view.state.get(str(block.get("block_id")), {}).get(
            str(element.get("action_id")), {}
        )
        value = next((v for k, v in entry.items() if k != "type"), None)
        if value is None or value == "" or value == []:
            unfilled.append(str(block.get("block_id")))
    return unfilled


def _top_view(emu: SlackEmulator, user: str, view_id: str) -> View:
    stack = emu.views(user)
    if not stack or stack[-1].id != view_id:
        raise LookupError(f"modal {view_id} is not open any more")
    return stack[-1]
