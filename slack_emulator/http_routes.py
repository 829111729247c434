"""The HTTP face of the emulator: Web API under /api/, response_urls under /actions/, and the
Socket Mode WebSocket at /link/, all on one aiohttp server."""

from __future__ import annotations

import json

from aiohttp import web

from slack_emulator.files import UPLOAD_PATH, Files
from slack_emulator.response_urls import PATH_PREFIX, ResponseUrls
from slack_emulator.socket_mode_server import SocketModeServer
from slack_emulator.web_api import WebApi, decode_form_arguments
from slack_emulator.wire import JsonDict


def build_server(
    web_api: WebApi,
    response_urls: ResponseUrls,
    socket: SocketModeServer,
    files: Files | None = None,
) -> web.Application:
    async def api(request: web.Request) -> web.Response:
        method = request.match_info["method"]
        params = decode_form_arguments(request.query)
        if request.method == "POST" and request.can_read_body:
            if request.content_type == "application/json":
                try:
                    body = await request.json()
                except ValueError:
                    return _json(200, {"ok": False, "error": "invalid_json"})
                if isinstance(body, dict):
                    # A JSON body cannot carry the token: it goes in the Authorization header.
                    body.pop("token", None)
                    params.update(body)
            else:
                form = await request.post()
                params.update(
                    decode_form_arguments({k: v for k, v in form.items() if isinstance(v, str)})
                )
        header = request.headers.get("Authorization", "")
        header_token = header[len("Bearer ") :] if header.startswith("Bearer ") else None
        param_token = params.pop("token", None)
        token = header_token or (param_token if isinstance(param_token, str) else None)
        reply = await web_api.call(method, params, token, token_in_header=header_token is not None)
        if isinstance(reply.body, str):
            return web.Response(
                status=reply.status,
                text=reply.body,
                content_type="text/html",
                headers=reply.headers,
            )
        return _json(reply.status, reply.body, reply.headers)

    async def respond(request: web.Request) -> web.Response:
        text = await request.text()
        try:
            body: object = json.loads(text)
        except ValueError:
            body = text
        reply = response_urls.handle(request.match_info["key"], body)
        return _json(reply.status, reply.body)

    async def upload(request: web.Request) -> web.Response:
        """An upload URL of files.getUploadURLExternal: raw bytes, or a multipart form's file."""
        if request.content_type.startswith("multipart/"):
            form = await request.post()
            parts = [v for v in form.values() if isinstance(v, web.FileField)]
            content = parts[0].file.read() if parts else b""
        else:
            content = await request.read()
        kept = files.receive(request.match_info["file_id"], content) if files else None
        if kept is None:
            return web.Response(status=404, text="no such upload")
        return web.Response(text=f"OK - {len(content)}")

    async def index(request: web.Request) -> web.Response:
        return web.Response(text="Slack emulator: Web API at /api/<method>\n")

    server = web.Application()
    server.router.add_route("*", "/api/{method}", api)
    server.router.add_post(PATH_PREFIX + "/{key:.+}", respond)
    server.router.add_get("/link/", socket.handle)
    server.router.add_post(UPLOAD_PATH + "/{file_id}", upload)
    server.router.add_get("/", index)
    return server


def _json(status: int, body: JsonDict, headers: dict[str, str] | None = None) -> web.Response:
    return web.Response(
        status=status,
        text=json.dumps(body),
        content_type="application/json",
        charset="utf-8",
        headers=headers,
    )
