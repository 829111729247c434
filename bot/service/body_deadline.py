"""A deadline on every request body: a client that trickles its body is answered 408 and
hung up on, so slow senders cannot hold the service's connections open.

The deadline starts when the headers have arrived (their own deadline is aiohttp's
keep-alive timer, see `bot/service/server.py`). Bodies are not read ahead of the handler:
each handler still decides whether a body is worth reading (the relay checks its bearer
token first, /slack/events its Slack headers), and a body it never reads costs nothing.
When the deadline passes before the body is complete, the body stream is failed with
`BodyTimedOut`, so a handler waiting on it stops waiting at once.
"""

from __future__ import annotations

import asyncio
import logging

from aiohttp import web
from aiohttp.typedefs import Handler, Middleware

log = logging.getLogger(__name__)


class BodyTimedOut(TimeoutError):
    """The body did not arrive in time.

    A `TimeoutError`, so aiohttp, draining what is left of the body after the answer,
    takes it as the end of that drain and closes the connection quietly.
    """

    def __init__(self, seconds: float) -> None:
        super().__init__(f"no complete body within {seconds:g} s")
        self.seconds = seconds


def body_deadline(seconds: float) -> Middleware:
    """Middleware: fail a body still incomplete `seconds` after its headers, answering 408."""

    @web.middleware
    async def middleware(request: web.Request, handler: Handler) -> web.StreamResponse:
        if not request.body_exists or request.content.is_eof():
            return await handler(request)
        expired = BodyTimedOut(seconds)
        timer = asyncio.get_running_loop().call_later(seconds, _expire, request, expired)
        try:
            return await handler(request)
        except BodyTimedOut as timed_out:
            log.warning(
                "answered 408 to %s %s from %s: %s",
                request.method,
                request.path,
                request.remote,
                timed_out,
            )
            response = web.Response(status=408, text=str(timed_out))
            response.force_close()  # the rest of the body is not worth waiting for
            return response
        finally:
            timer.cancel()

    return middleware


def _expire(request: web.Request, expired: BodyTimedOut) -> None:
    if not request.content.is_eof():
        request.content.set_exception(expired)
