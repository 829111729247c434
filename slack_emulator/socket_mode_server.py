"""Socket Mode: the WebSocket side of Slack the app connects to with its xapp- token.

`apps.connections.open` hands out a one-time `ws://…/link/?ticket=…` URL on the emulator's
own server. On connect the server says `hello`; it sends envelopes (`envelope_id`, `type`,
`payload`, `accepts_response_payload`) and reads acks (`{"envelope_id", "payload"?}`).
Tests can ask it to send `disconnect` (e.g. `refresh_requested`) or drop the connection
without a close frame, then await the app's next connection.
https://docs.slack.dev/apis/events-api/using-socket-mode
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from dataclasses import dataclass, field

from aiohttp import WSMsgType, web

from slack_emulator import app_payloads
from slack_emulator.changes import Changes
from slack_emulator.identity import AppIdentity
from slack_emulator.ids import Ids
from slack_emulator.wire import JsonDict


@dataclass(frozen=True)
class SocketAck:
    payload: JsonDict | None


@dataclass(eq=False)
class _Connection:
    number: int
    ws: web.WebSocketResponse
    request: web.Request
    retiring: bool = False
    pending: dict[str, asyncio.Future[SocketAck]] = field(default_factory=dict)

    @property
    def usable(self) -> bool:
        return not self.retiring and not self.ws.closed


class SocketModeServer:
    """Accepts the app's Socket Mode connections and delivers envelopes over the newest."""

    def __init__(self, app: AppIdentity, ids: Ids, changes: Changes) -> None:
        self._app = app
        self._ids = ids
        self._changes = changes
        self._tickets: set[str] = set()
        self._connections: list[_Connection] = []
        self.connections_opened = 0
        """How many connections the app has opened so far (reconnects count)."""

    # the URL apps.connections.open returns -------------------------------------------

    def issue_url(self, base_url: str) -> str:
        ticket = self._ids.uuid()
        self._tickets.add(ticket)
        ws_base = "ws" + base_url.removeprefix("http")
        return f"{ws_base}/link/?ticket={ticket}&app_id={self._app.app_id}"

    # what tests use ---------------------------------------------------------------------

    @property
    def connected(self) -> bool:
        return any(c.usable for c in self._connections)

    async def wait_connected(self, within: float = 5.0) -> None:
        """Until the app holds a usable connection (one not told to disconnect, not dropped)."""
        await self._changes.wait_until(
            lambda: self.connected, within=within, what="a Socket Mode connection"
        )

    async def wait_for_connection(self, number: int, within: float = 5.0) -> None:
        """Until the app has opened its `number`-th connection and it is usable."""
        await self._changes.wait_until(
            lambda: self.connections_opened >= number and self.connected,
            within=within,
            what=f"Socket Mode connection #{number}",
        )

    async def disconnect(self, reason: str = "refresh_requested") -> None:
        """Send Slack's `disconnect` message; the connection stops getting envelopes."""
        connection = self._current()
        connection.retiring = True
        self._changes.notify()
        await connection.ws.send_str(json.dumps(app_payloads.disconnect(reason)))

    async def drop(self) -> None:
        """Cut the newest connection at the TCP level: no close frame, as a network failure."""
        connection = self._current()
        connection.retiring = True
        transport = connection.request.transport
        if transport is not None:
            transport.abort()
        self._changes.notify()

    # delivery -------------------------------------------------------------------------

    async def send(
        self,
        *,
        envelope_type: str,
        payload: JsonDict,
        accepts_response_payload: bool,
        within: float,
    ) -> SocketAck:
        """Send one envelope over the newest usable connection and wait `within` s for its ack;
        raises ConnectionError without a connection, TimeoutError without an ack."""
        connection = self._current()
        envelope_id = self._ids.uuid()
        waiter: asyncio.Future[SocketAck] = asyncio.get_running_loop().create_future()
        connection.pending[envelope_id] = waiter
        envelope = app_payloads.envelope(
            envelope_id=envelope_id,
            envelope_type=envelope_type,
            payload=payload,
            accepts_response_payload=accepts_response_payload,
        )
        try:
            await connection.ws.send_str(json.dumps(envelope))
            return await asyncio.wait_for(waiter, within)
        finally:
            connection.pending.pop(envelope_id, None)

    def _current(self) -> _Connection:
        usable = [c for c in self._connections if c.usable]
        if not usable:
            raise ConnectionError("the app has no Socket Mode connection")
        return usable[-1]

    # the aiohttp side -----------------------------------------------------------------

    async def handle(self, request: web.Request) -> web.StreamResponse:
        ticket = request.query.get("ticket", "")
        if ticket not in self._tickets:
            return web.Response(status=401, text="invalid ticket")
        self._tickets.discard(ticket)
        ws = web.WebSocketResponse(autoping=True)
        await ws.prepare(request)
        self.connections_opened += 1
        connection = _Connection(self.connections_opened, ws, request)
        self._connections.append(connection)
        try:
            usable = sum(1 for c in self._connections if c.usable)
            await ws.send_str(json.dumps(app_payloads.hello(app=self._app, num_connections=usable)))
            self._changes.notify()
            async for message in ws:
                if message.type == WSMsgType.TEXT:
                    self._on_text(connection, message.data)
        except ConnectionError:
            pass
        finally:
            self._connections.remove(connection)
            for waiter in connection.pending.values():
                if not waiter.done():
                    waiter.set_exception(ConnectionError("Socket Mode connection lost"))
            self._changes.notify()
        return ws

    def _on_text(self, connection: _Connection, data: str) -> None:
        try:
            ack = json.loads(data)
        except ValueError:
            return
        if not isinstance(ack, dict):
            return
        waiter = connection.pending.get(str(ack.get("envelope_id")))
        if waiter is not None and not waiter.done():
            payload = ack.get("payload")
            waiter.set_result(SocketAck(payload if isinstance(payload, dict) else None))

    async def close(self) -> None:
        for connection in list(self._connections):
            with contextlib.suppress(Exception):
                await connection.ws.close()
