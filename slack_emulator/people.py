"""People: act as a Slack user in a test, and the app receives exactly what Slack sends.

Each action finds the element by its ids (or a button by its label), updates the person's
draft as Slack's client does, and, where Slack would, delivers the payload to the app and
waits for the ack. Elements in actions blocks and section accessories dispatch at once;
elements in an input block only change the draft unless the block sets `dispatch_action`.
Acting on something that is not there raises LookupError listing what is.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Final, TypeAlias

from slack_emulator import ack_effects, app_payloads, elements
from slack_emulator.core import Core
from slack_emulator.elements import ElementRef
from slack_emulator.identity import AppIdentity
from slack_emulator.records import Delivery
from slack_emulator.slack_objects import Channel, Ephemeral, Message, User, View
from slack_emulator.wire import JsonDict, StateValues

Target: TypeAlias = Message | Ephemeral | View

BUTTONS: Final = elements.types_used_by("click")
SELECTS: Final = elements.types_used_by("select")
CHECKBOXES: Final = elements.types_used_by("check")
RADIOS: Final = elements.types_used_by("choose")
TEXT_INPUTS: Final = elements.types_used_by("type")
USER_SELECTS: Final = frozenset({"users_select"})
FEEDBACK_BUTTONS: Final = elements.types_used_by("rate")


@dataclass(frozen=True)
class _Use:
    """What a person did with an element: its new `state.values` entry and the fields the
    `actions` entry carries (both None for a button)."""

    state: JsonDict | None = None
    action: JsonDict | None = None


@dataclass(frozen=True)
class _Surface:
    """The current version of what a person is looking at, and how to act on it."""

    blocks: list[JsonDict]
    state: StateValues
    save: Callable[[StateValues], None]
    payload: Callable[[StateValues, list[JsonDict]], JsonDict]


class Person:
    """A workspace member a test acts as: `alice = emu.person("U1")`."""

    def __init__(self, core: Core, user_id: str, *, sender: AppIdentity | None = None) -> None:
        self._core = core
        self.user: User = core.workspace.user(user_id)
        # The team and app ids this person's payloads carry: the emulated app's, unless a
        # test sends what another workspace or app would (a foreign click, signed all the same).
        self._sender = sender or core.app

    @property
    def id(self) -> str:
        return self.user.id

    # element actions ------------------------------------------------------------------

    async def click(
        self,
        target: Target,
        *,
        action_id: str | None = None,
        block_id: str | None = None,
        text: str | None = None,
    ) -> Delivery:
        """Click a button, found by action_id/block_id or by its label (`text="Approve"`)."""
        delivery = await self._use(
            target, "click", BUTTONS, action_id, block_id, text, lambda ref: _Use()
        )
        if delivery is None:
            raise RuntimeError("a button always dispatches block_actions")
        return delivery

    async def give_feedback(
        self,
        target: Target,
        *,
        positive: bool,
        action_id: str | None = None,
        block_id: str | None = None,
    ) -> Delivery:
        """Click 👍 (`positive`) or 👎 of a feedback_buttons element in a context_actions
        block: the action carries that button's value and text, as Slack sends them."""

        def rate(ref: ElementRef) -> _Use:
            button = ref.element.get("positive_button" if positive else "negative_button")
            if not isinstance(button, dict):
                raise LookupError(
                    f"{ref.describe()} has no {'positive' if positive else 'negative'} button"
                )
            return _Use(None, {"value": button.get("value"), "text": button.get("text")})

        delivery = await self._use(
            target, "give feedback with", FEEDBACK_BUTTONS, action_id, block_id, None, rate
        )
        if delivery is None:
            raise RuntimeError("feedback buttons always dispatch block_actions")
        return delivery

    async def select(
        self,
        target: Target,
        *,
        block_id: str | None = None,
        action_id: str | None = None,
        value: str | None = None,
        values: Sequence[str] | None = None,
    ) -> Delivery | None:
        """Pick `value` in a static_select or overflow menu (a user id in a users_select),
        or `values` in a multi_static_select (in that order)."""

        def pick(ref: ElementRef) -> _Use:
            if ref.type == "multi_static_select":
                if values is None or value is not None:
                    raise ValueError(f"{ref.describe()} is a multi-select: pass values=[...]")
                chosen = [
                    elements.option_payload(elements.find_option(ref.element, v)) for v in values
                ]
                return _Use(elements.value_of(ref.element, chosen), {"selected_options": chosen})
            if value is None or values is not None:
                raise ValueError(f"{ref.describe()} takes one option: pass value=...")
            if ref.type == "users_select":
                # A person is picked by user id; Slack sends it as `selected_user`.
                self._core.workspace.user(value)
                return _Use(elements.value_of(ref.element, value), {"selected_user": value})
            option = elements.option_payload(elements.find_option(ref.element, value))
            if ref.type == "overflow":
                return _Use(None, {"selected_option": option})
            return _Use(elements.value_of(ref.element, option), {"selected_option": option})

        return await self._use(target, "select in", SELECTS, action_id, block_id, None, pick)

    async def check(
        self,
        target: Target,
        *,
        block_id: str | None = None,
        action_id: str | None = None,
        values: Sequence[str],
    ) -> Delivery | None:
        """Leave exactly `values` ticked in a checkboxes group (one block_actions, not one
        per tick)."""

        def tick(ref: ElementRef) -> _Use:
            for wanted in values:
                elements.find_option(ref.element, wanted)
            chosen = [
                elements.option_payload(option)
                for option in elements.all_options(ref.element)
                if option.get("value") in values
            ]
            return _Use(elements.value_of(ref.element, chosen), {"selected_options": chosen})

        return await self._use(target, "tick", CHECKBOXES, action_id, block_id, None, tick)

    async def choose(
        self,
        target: Target,
        *,
        block_id: str | None = None,
        action_id: str | None = None,
        value: str,
    ) -> Delivery | None:
        """Choose one radio button."""

        def choose(ref: ElementRef) -> _Use:
            option = elements.option_payload(elements.find_option(ref.element, value))
            return _Use(elements.value_of(ref.element, option), {"selected_option": option})

        return await self._use(target, "choose in", RADIOS, action_id, block_id, None, choose)

    async def type(
        self,
        target: Target,
        *,
        block_id: str | None = None,
        action_id: str | None = None,
        text: str,
    ) -> Delivery | None:
        """Type `text` into a text input (replacing what was there). Only a draft, unless the
        input block sets `dispatch_action` (then as if Enter was pressed)."""

        def enter(ref: ElementRef) -> _Use:
            return _Use(elements.value_of(ref.element, text), {"value": text})

        return await self._use(target, "type into", TEXT_INPUTS, action_id, block_id, None, enter)

    async def pick_user(
        self,
        target: Target,
        *,
        block_id: str | None = None,
        action_id: str | None = None,
        user: str,
    ) -> Delivery | None:
        """Pick the workspace member `user` in a users_select (Slack lists only members,
        so an unknown id raises LookupError)."""
        self._core.workspace.user(user)

        def pick(ref: ElementRef) -> _Use:
            return _Use(elements.value_of(ref.element, user), {"selected_user": user})

        return await self._use(
            target, "pick a user in", USER_SELECTS, action_id, block_id, None, pick
        )

    def draft(self, target: Target) -> StateValues:
        """What the person has entered on `target` but not yet sent: its `state.values`
        (block_id → action_id → value), initial values included — as their client holds it."""
        return self._surface(target).state

    # modals ---------------------------------------------------------------------------

    async def submit(self, view: View) -> Delivery:
        """Press the modal's submit button; the app's ack is applied (errors, update, push,
        clear, or — for a plain ack — the view closes)."""
        current = self._top_modal(view)
        missing = [
            str(block.get("block_id"))
            for block in current.blocks
            if block.get("type") == "input"
            and not block.get("optional")
            and _is_empty(current, block)
        ]
        if missing:
            raise ValueError(
                f"Slack would not submit {current.id}: required inputs are empty: {', '.join(missing)}"
            )
        payload = app_payloads.view_submission(
            app=self._sender,
            user=self.user,
            view=current,
            trigger_id=self._core.triggers.issue(self.id),
        )
        delivery = await self._core.deliverer.interaction(payload)
        ack_effects.apply_view_submission_ack(self._core, current, delivery)
        return delivery

    async def close(self, view: View) -> Delivery | None:
        """Press the modal's close button. The app hears of it (view_closed) only when the
        view set `notify_on_close`; either way the view is gone."""
        current = self._top_modal(view)
        workspace = self._core.workspace
        if current.clear_on_close:
            workspace.close_all(self.id)
        else:
            workspace.close_view(self.id, current.id)
        if not current.notify_on_close:
            return None
        payload = app_payloads.view_closed(
            app=self._sender, user=self.user, view=current, is_cleared=current.clear_on_close
        )
        return await self._core.deliverer.interaction(payload)

    # messages, commands, Home -----------------------------------------------------------

    async def reply(self, channel: str, thread_ts: str, text: str) -> Message:
        """Reply in a thread; the app gets the `message` event (if it is in the channel)."""
        conversation = self._channel_for_posting(channel)
        root = self._core.workspace.message(conversation.id, thread_ts)
        if root is None or root.is_reply:
            raise LookupError(f"no thread {thread_ts} in {channel}")
        return await self._post(conversation, text, thread_ts=root.ts)

    async def say(self, channel: str, text: str) -> Message:
        """Post a top-level message; the app gets the `message` event (if it is in the channel)."""
        return await self._post(self._channel_for_posting(channel), text, thread_ts=None)

    async def command(
        self, command: str, text: str = "", *, channel: str | None = None, escape: bool = True
    ) -> Delivery:
        """Run a slash command in `channel` (default: the person's DM with the app). A
        message in the app's ack is shown as Slack shows it. `escape`: the command's
        `should_escape` is on, so a typed `@name` of someone in the workspace arrives as
        `<@U…|name>`, as Slack sends a person picked from its list."""
        conversation = (
            self._core.workspace.im_channel(self.id) if channel is None else self._channel(channel)
        )
        users = self._core.workspace.users.values()
        fields = app_payloads.slash_command(
            app=self._sender,
            user=self.user,
            channel=conversation,
            command=command,
            text=app_payloads.escaped_mentions(text, users) if escape else text,
            response_url=self._core.response_urls.issue(
                channel_id=conversation.id, user_id=self.id, message_ts=None, ephemeral=False
            ),
            trigger_id=self._core.triggers.issue(self.id),
        )
        delivery = await self._core.deliverer.command(fields)
        ack_effects.apply_command_ack(self._core, self.user, conversation, delivery)
        return delivery

    async def open_home(self) -> Delivery:
        """Open the app's Home tab: the app gets `app_home_opened`."""
        core = self._core
        event = app_payloads.app_home_opened_event(
            user=self.user,
            channel=core.workspace.im_channel(self.id),
            view=core.workspace.home(self.id),
            event_ts=core.ids.ts(),
        )
        return await core.deliverer.event(self._envelope(event))

    async def stop_agent_session(self, channel: str, thread_ts: str) -> Delivery:
        """Press the native Stop button of the app's agent session in the thread: the app
        gets `agent_session_stopped`. Slack shows it only while the session is processing
        and the app subscribes to the event; otherwise this raises `SlackError` saying so.
        The session's status is left as it was: moving it on is the app's job."""
        conversation = self._channel_for_posting(channel)
        core = self._core
        session = core.workspace.agent_sessions.stoppable(conversation.id, thread_ts)
        event = app_payloads.agent_session_stopped_event(
            user=self.user,
            channel=conversation,
            thread_ts=session.thread_ts,
            event_ts=core.ids.ts(),
        )
        return await core.deliverer.event(self._envelope(event))

    # internals ------------------------------------------------------------------------

    async def _use(
        self,
        target: Target,
        verb: str,
        types: frozenset[str],
        action_id: str | None,
        block_id: str | None,
        text: str | None,
        use: Callable[[ElementRef], _Use],
    ) -> Delivery | None:
        surface = self._surface(target)
        ref = elements.find_element(
            surface.blocks,
            types=types,
            verb=verb,
            action_id=action_id,
            block_id=block_id,
            text=text,
        )
        done = use(ref)
        state = surface.state
        if done.state is not None:
            state.setdefault(ref.block_id, {})[ref.action_id] = done.state
            surface.save(state)
        if not ref.dispatches:
            return None
        action = app_payloads.action(ref, done.action, self._core.ids.ts())
        return await self._core.deliverer.interaction(surface.payload(state, [action]))

    def _surface(self, target: Target) -> _Surface:
        if isinstance(target, View):
            return self._view_surface(target)
        workspace = self._core.workspace
        channel = self._channel(target.channel)
        current: Message | Ephemeral | None
        if isinstance(target, Message):
            current = workspace.message(channel.id, target.ts)
            ephemeral = False
        else:
            current = workspace.ephemeral(self.id, target.ts)
            ephemeral = True
        if current is None:
            whose = "" if isinstance(target, Message) else f" shown to {self.user.name}"
            raise LookupError(f"no message {target.ts}{whose} in {channel.id} any more")
        found = current
        where = app_payloads.MessageContext.of(channel, found)

        def payload(state: StateValues, actions: list[JsonDict]) -> JsonDict:
            return app_payloads.block_actions_on_message(
                app=self._sender,
                user=self.user,
                where=where,
                state=state,
                actions=actions,
                trigger_id=self._core.triggers.issue(self.id),
                response_url=self._core.response_urls.issue(
                    channel_id=channel.id, user_id=self.id, message_ts=found.ts, ephemeral=ephemeral
                ),
            )

        return _Surface(
            blocks=found.blocks,
            state=workspace.draft(self.id, channel.id, found.ts, found.blocks),
            save=lambda state: workspace.set_draft(self.id, channel.id, found.ts, state),
            payload=payload,
        )

    def _view_surface(self, target: View) -> _Surface:
        workspace = self._core.workspace
        current = workspace.view(target.id)
        if current is None or current.user_id != self.id:
            raise LookupError(f"{self.user.name} has no open view {target.id}")
        if current.type == "modal":
            current = self._top_modal(current)

        def save(state: StateValues) -> None:
            latest = workspace.view(current.id) or current
            workspace.replace_view(dataclasses.replace(latest, state=state))

        def payload(state: StateValues, actions: list[JsonDict]) -> JsonDict:
            latest = workspace.view(current.id) or current
            return app_payloads.block_actions_on_view(
                app=self._sender,
                user=self.user,
                view=latest,
                actions=actions,
                trigger_id=self._core.triggers.issue(self.id),
            )

        return _Surface(current.blocks, dict(current.state), save, payload)

    def _top_modal(self, view: View) -> View:
        stack = self._core.workspace.modal_stack(self.id)
        if not stack or stack[-1].id != view.id:
            open_ids = ", ".join(v.id for v in stack) or "none"
            raise LookupError(
                f"{view.id} is not the modal {self.user.name} sees; open modals: {open_ids}"
            )
        return stack[-1]

    def _channel(self, ref: str) -> Channel:
        channel = self._core.workspace.resolve_channel(ref)
        if channel is None:
            raise LookupError(f"no channel {ref!r}")
        return channel

    def _channel_for_posting(self, ref: str) -> Channel:
        channel = self._channel(ref)
        if self.id not in channel.members:
            raise ValueError(f"{self.user.name} ({self.id}) is not a member of {channel.id}")
        return channel

    async def _post(self, channel: Channel, text: str, *, thread_ts: str | None) -> Message:
        core = self._core
        message = core.workspace.post_message(
            channel.id,
            user=self.id,
            text=text,
            blocks=app_payloads.rich_text_blocks(text, core.ids.block_id()),
            as_bot=False,
            thread_ts=thread_ts,
            client_msg_id=core.ids.uuid(),
        )
        if core.app.bot_user_id in channel.members:
            await core.deliverer.event(self._envelope(app_payloads.message_event(message, channel)))
        return message

    def _envelope(self, event: JsonDict) -> JsonDict:
        core = self._core
        return app_payloads.event_callback(
            app=self._sender,
            event=event,
            event_id=core.ids.event_id(),
            event_time=int(core.clock.now()),
        )


def _is_empty(view: View, block: JsonDict) -> bool:
    element = block.get("element") or {}
    entry = view.state.get(str(block.get("block_id")), {}).get(str(element.get("action_id")), {})
    value = next((v for k, v in entry.items() if k != "type"), None)
    return value is None or value == "" or value == []
