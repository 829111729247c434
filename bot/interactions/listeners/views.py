"""view_submission and view_closed listeners for our modals.

A submission is checked before the ack, because missing answers must come back in the ack
itself (`response_action: errors`); everything else runs after it, in a tracked task. An
accepted submission and a closed form are kept in the inbox before the ack (bot/interactions/inbox.py).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Coroutine
from typing import Any

from slack_bolt.async_app import AsyncAck, AsyncApp, AsyncBoltRequest

from bot.block_ids import Callback, ViewMeta
from bot.interactions.answering import Interactions
from bot.interactions.inbox import Inbox
from bot.interactions.listeners.parsing import meta_of, parse
from bot.payloads import StateValues, ViewClosed, ViewSubmission
from bot.store import InboxKind

Check = Callable[[ViewMeta, StateValues], dict[str, str]]
Submit = Callable[[str, ViewMeta, StateValues], Coroutine[Any, Any, None]]


def register_views(app: AsyncApp, interactions: Interactions, inbox: Inbox) -> None:
    """Wire form, "Other", "Request changes" and read-only modals to `interactions`."""
    i = interactions
    submissions: dict[Callback, tuple[Check, Submit]] = {
        Callback.FORM: (i.check_form, i.submit_form),
        Callback.OTHER: (i.check_other, i.submit_other),
        Callback.CHANGES: (i.check_other, i.submit_other),  # the comment is the answer
    }
    inbox.route(InboxKind.VIEW_SUBMISSION, lambda body: _submitted(submissions, body))
    inbox.route(InboxKind.VIEW_CLOSED, lambda body: _closed(interactions, body))
    for callback, (check, _) in submissions.items():
        app.view(callback)(_submission(check, inbox))

    @app.view_closed(Callback.FORM)
    async def on_form_closed(
        ack: AsyncAck, body: dict[str, Any], request: AsyncBoltRequest
    ) -> None:
        item = await inbox.keep(InboxKind.VIEW_CLOSED, body, request.raw_body)
        await ack()
        inbox.handle(InboxKind.VIEW_CLOSED, item, body)

    @app.view(Callback.DETAILS)
    async def on_read_only_submitted(ack: AsyncAck) -> None:
        await ack()


def _submission(check: Check, inbox: Inbox) -> Callable[..., Awaitable[None]]:
    async def listener(ack: AsyncAck, body: dict[str, Any], request: AsyncBoltRequest) -> None:
        payload = parse(ViewSubmission, body)
        meta = meta_of(payload.view.private_metadata) if payload else None
        if payload is None or meta is None:
            await ack()
            return
        values = payload.view.state.values
        errors = check(meta, values)
        if errors:
            await ack(response_action="errors", errors=errors)
            return
        item = await inbox.keep(InboxKind.VIEW_SUBMISSION, body, request.raw_body)
        await ack()
        inbox.handle(InboxKind.VIEW_SUBMISSION, item, body)

    return listener


async def _submitted(
    submissions: dict[Callback, tuple[Check, Submit]], body: dict[str, Any]
) -> None:
    """An accepted submission, after its ack (checked before it: not checked again)."""
    payload = parse(ViewSubmission, body)
    meta = meta_of(payload.view.private_metadata) if payload else None
    if payload is None or meta is None:
        return
    for callback, (_, submit) in submissions.items():
        if payload.view.callback_id == callback:
            await submit(payload.user.id, meta, payload.view.state.values)


async def _closed(interactions: Interactions, body: dict[str, Any]) -> None:
    payload = parse(ViewClosed, body)
    meta = meta_of(payload.view.private_metadata) if payload else None
    if payload and meta:
        await interactions.form_closed(payload.user.id, meta)
