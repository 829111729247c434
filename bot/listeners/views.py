"""view_submission and view_closed listeners for our modals.

A submission is checked before the ack, because missing answers must come back in the ack
itself (`response_action: errors`); everything else runs after it, in a tracked task.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Coroutine
from typing import Any

from slack_bolt.async_app import AsyncAck, AsyncApp

from ..actions import Callback, ViewMeta
from ..interactions import Interactions
from ..payloads import StateValues, ViewClosed, ViewSubmission
from ..tasks import Tasks
from .parsing import meta_of, parse

Check = Callable[[ViewMeta, StateValues], dict[str, str]]
Submit = Callable[[str, ViewMeta, StateValues], Coroutine[Any, Any, None]]


def register_views(app: AsyncApp, interactions: Interactions, tasks: Tasks) -> None:
    """Wire form, "Other", "Request changes" and read-only modals to `interactions`."""
    i = interactions
    submissions: dict[Callback, tuple[Check, Submit]] = {
        Callback.FORM: (i.check_form, i.submit_form),
        Callback.OTHER: (i.check_other, i.submit_other),
        Callback.CHANGES: (i.check_other, i.submit_other),  # the comment is the answer
    }
    for callback, (check, submit) in submissions.items():
        app.view(callback)(_submission(check, submit, tasks))

    @app.view_closed(Callback.FORM)
    async def on_form_closed(ack: AsyncAck, body: dict[str, Any]) -> None:
        await ack()
        tasks.spawn(_closed(interactions, body), name="form closed")

    @app.view(Callback.DETAILS)
    async def on_read_only_submitted(ack: AsyncAck) -> None:
        await ack()


def _submission(check: Check, submit: Submit, tasks: Tasks) -> Callable[..., Awaitable[None]]:
    async def listener(ack: AsyncAck, body: dict[str, Any]) -> None:
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
        await ack()
        tasks.spawn(submit(payload.user.id, meta, values), name="view submission")

    return listener


async def _closed(interactions: Interactions, body: dict[str, Any]) -> None:
    payload = parse(ViewClosed, body)
    meta = meta_of(payload.view.private_metadata) if payload else None
    if payload and meta:
        await interactions.form_closed(payload.user.id, meta)
