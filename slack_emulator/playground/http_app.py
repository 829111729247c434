"""The playground's HTTP server: the page, its live updates and the acts the page posts.

Every path starts with the run's token (`access.py`: token, Host and Origin are checked on
every request, before any route):

    GET  /<token>/          the page (`?as=U…&c=C…&t=<thread ts>` or `&tab=home`);
                            `&partial=1` returns only what goes inside `#app`, for live updates
    GET  /<token>           redirects to `/<token>/` (the page's links are relative to it)
    GET  /<token>/events    server-sent events: `data: <version>` whenever the emulator changed
    POST /<token>/act       one `Act` as JSON → `ActResult`, or `{"error": …}` with 400/404/415
    GET  /<token>/static/…  the stylesheet and the one hand-written script

Acts must also be `application/json`: a browser sends that cross-origin only after a CORS
preflight this server never answers.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from pathlib import Path
from typing import Final

from aiohttp import web
from pydantic import ValidationError

from slack_emulator import SlackEmulator
from slack_emulator.playground.access import Access, url_host
from slack_emulator.playground.acts import ACT, ViewAct, perform
from slack_emulator.playground.pages import Page, PageError, Place

STATIC: Final = Path(__file__).with_name("static")
_STATIC_FILES: Final = frozenset({"playground.css", "playground.js"})
_KEEP_ALIVE: Final = 15.0
"""Seconds between SSE comments, so proxies and the browser keep the stream open."""
_ACT_BODY_LIMIT: Final = 64 * 1024


class Playground:
    """The emulated workspace in a browser: `await Playground(emu, person=…).start()`, then
    open `playground.url`; `await playground.close()` ends live streams and the server."""

    def __init__(self, emu: SlackEmulator, *, person: str) -> None:
        self._emu = emu
        self._person = person
        self._runner: web.AppRunner | None = None
        self._url: str | None = None
        self._streams: set[asyncio.Task[object]] = set()
        # view id -> the required inputs its last refused Submit found empty (shown in red).
        self._unfilled: dict[str, frozenset[str]] = {}

    @property
    def url(self) -> str:
        if self._url is None:
            raise RuntimeError("the playground is not running; await playground.start() first")
        return self._url

    async def start(self, host: str = "127.0.0.1", port: int = 0) -> None:
        """Serve on `host:port` (port 0: any free port) under a fresh token: `url` holds it,
        and nothing is served without it."""
        if self._runner is not None:
            raise RuntimeError("the playground is already running")
        access = Access.fresh(host)
        app = web.Application(client_max_size=_ACT_BODY_LIMIT, middlewares=[access.middleware])
        app.on_response_prepare.append(_private)
        # `{token}` is matched by the middleware (in constant time), not by the router.
        app.router.add_get("/{token}", _to_page)
        app.router.add_get("/{token}/", self._page)
        app.router.add_get("/{token}/events", self._events)
        app.router.add_post("/{token}/act", self._act)
        app.router.add_get("/{token}/static/{name}", _static)
        runner = web.AppRunner(app, shutdown_timeout=1.0, access_log=None)
        await runner.setup()
        try:
            await web.TCPSite(runner, host, port).start()
        except BaseException:
            await runner.cleanup()
            raise
        bound_host, bound_port = runner.addresses[0][:2]
        self._runner = runner
        self._url = f"http://{url_host(bound_host)}:{bound_port}/{access.token}/"

    async def close(self) -> None:
        """End the live streams, then the server; idempotent."""
        runner, self._runner = self._runner, None
        self._url = None
        for stream in list(self._streams):
            stream.cancel()
        for stream in list(self._streams):
            with contextlib.suppress(asyncio.CancelledError):
                await stream
        if runner is not None:
            await runner.cleanup()

    # routes -----------------------------------------------------------------------------

    async def _page(self, request: web.Request) -> web.Response:
        query = request.query
        place = Place(
            user=query.get("as") or self._person,
            channel=query.get("c") or None,
            thread=query.get("t") or None,
            home=query.get("tab") == "home",
        )
        try:
            page = Page(self._emu, place, self._unfilled)
        except PageError as error:
            return web.Response(status=404, text=f"{error}\n", content_type="text/plain")
        if query.get("partial") == "1":
            return web.Response(
                text=page.app(),
                content_type="text/html",
                headers={"X-Version": str(self._emu.version), "Cache-Control": "no-store"},
            )
        return web.Response(
            text=page.document(), content_type="text/html", headers={"Cache-Control": "no-store"}
        )

    async def _events(self, request: web.Request) -> web.StreamResponse:
        task = asyncio.current_task()
        assert task is not None  # an aiohttp handler always runs in a task
        self._streams.add(task)
        response = web.StreamResponse(
            headers={"Content-Type": "text/event-stream", "Cache-Control": "no-store"}
        )
        try:
            await response.prepare(request)
            await response.write(f"retry: 1000\ndata: {self._emu.version}\n\n".encode())
            while True:
                seen = self._emu.version
                moved = await self._changed_since(seen)
                if moved:
                    await response.write(f"data: {self._emu.version}\n\n".encode())
                else:
                    await response.write(b": keep-alive\n\n")
        except ConnectionResetError:
            return response  # the page went away
        finally:
            self._streams.discard(task)

    async def _changed_since(self, seen: int) -> bool:
        """Wait for the emulator to move past `seen`: True when it did, False after a quiet
        keep-alive period."""
        try:
            await self._emu.wait_for(
                lambda: self._emu.version != seen, within=_KEEP_ALIVE, what="a change to show"
            )
        except TimeoutError:
            return False
        return True

    async def _act(self, request: web.Request) -> web.Response:
        if request.content_type != "application/json":
            return _error(415, "acts are JSON: send Content-Type: application/json")
        try:
            act = ACT.validate_json(await request.read())
        except ValidationError as error:
            problems = "; ".join(
                f"{'.'.join(str(p) for p in e['loc']) or 'body'}: {e['msg']}"
                for e in error.errors()
            )
            return _error(400, f"not an act the page can do: {problems}")
        try:
            result = await perform(self._emu, act)
        except LookupError as error:
            return _error(404, str(error).strip("'\""))
        except ValueError as error:
            return _error(400, str(error))
        if isinstance(act, ViewAct):
            self._unfilled.pop(act.view_id, None)
            if result.unfilled:
                self._unfilled[act.view_id] = frozenset(result.unfilled)
        # `unfilled` only when a Submit was refused: every other answer keeps its shape.
        return web.json_response(
            result.model_dump(exclude=None if result.unfilled else {"unfilled"})
        )


async def _to_page(request: web.Request) -> web.Response:
    """`/<token>` → `/<token>/`, keeping the query: the page's links are relative to it."""
    query = f"?{request.query_string}" if request.query_string else ""
    raise web.HTTPPermanentRedirect(f"{request.rel_url.raw_path}/{query}")


async def _static(request: web.Request) -> web.FileResponse:
    """One of the playground's own files; nothing else in the folder is served."""
    name = request.match_info["name"]
    if name not in _STATIC_FILES:
        raise web.HTTPNotFound(
            text=f"no static file {name!r}; there are: playground.css, playground.js\n"
        )
    return web.FileResponse(STATIC / name, headers={"Cache-Control": "no-store"})


async def _private(request: web.Request, response: web.StreamResponse) -> None:
    """Every response: the token is in the address, so no link may carry it away in a
    Referer, and no other site may frame the page."""
    response.headers["Referrer-Policy"] = "no-referrer"
    response.headers["X-Frame-Options"] = "DENY"


def _error(status: int, message: str) -> web.Response:
    return web.Response(
        status=status,
        text=json.dumps({"error": message}),
        content_type="application/json",
    )
