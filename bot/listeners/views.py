"""view_submission and view_closed listeners for our modals."""

from __future__ import annotations

from typing import Any

from slack_bolt.async_app import AsyncAck, AsyncApp

from ..actions import Callback
from ..interactions import Interactions
from ..payloads import ViewClosed, ViewSubmission
from ..tasks import Tasks
from .parsing import meta_of, parse


def register_views(app: AsyncApp, interactions: Interactions, tasks: Tasks) -> None:
    """Wire form, "Other" and details modals to `interactions`."""

    @app.view(Callback.FORM)
    async def on_form_submitted(ack: AsyncAck, body: dict[str, Any]) -> None:
        payload = parse(ViewSubmission, body)
        meta = meta_of(payload.view.private_metadata) if payload else None
        if payload is None or meta is None:
            await ack()
            return
        values = payload.view.state.values
        # Checked before the ack: missing answers must come back in the ack itself.
        errors = interactions.check_form(meta, values)
        if errors:
            await ack(response_action="errors", errors=errors)
            return
        await ack()
        tasks.spawn(interactions.submit_form(payload.user.id, meta, values), name="form")

    @app.view_closed(Callback.FORM)
    async def on_form_closed(ack: AsyncAck, body: dict[str, Any]) -> None:
        await ack()
        payload = parse(ViewClosed, body)
        meta = meta_of(payload.view.private_metadata) if payload else None
        if payload and meta:
            tasks.spawn(interactions.form_closed(payload.user.id, meta), name="form closed")

    @app.view(Callback.OTHER)
    async def on_other_submitted(ack: AsyncAck, body: dict[str, Any]) -> None:
        payload = parse(ViewSubmission, body)
        meta = meta_of(payload.view.private_metadata) if payload else None
        if payload is None or meta is None:
            await ack()
            return
        values = payload.view.state.values
        errors = interactions.check_other(meta, values)
        if errors:
            await ack(response_action="errors", errors=errors)
            return
        await ack()
        tasks.spawn(interactions.submit_other(payload.user.id, meta, values), name="other")

    @app.view(Callback.CHANGES)
    async def on_changes_submitted(ack: AsyncAck, body: dict[str, Any]) -> None:
        payload = parse(ViewSubmission, body)
        meta = meta_of(payload.view.private_metadata) if payload else None
        if payload is None or meta is None:
            await ack()
            return
        values = payload.view.state.values
        errors = interactions.check_changes(meta, values)
        if errors:
            await ack(response_action="errors", errors=errors)
            return
        await ack()
        tasks.spawn(interactions.submit_changes(payload.user.id, meta, values), name="changes")

    @app.view(Callback.DETAILS)
    async def on_details_submitted(ack: AsyncAck) -> None:
        await ack()
