"""The emulated Slack's parts, built once per emulator and passed to whatever needs them."""

from __future__ import annotations

from dataclasses import dataclass

from slack_emulator.changes import Changes
from slack_emulator.delivery import Deliverer, DeliverySettings
from slack_emulator.identity import AppIdentity
from slack_emulator.ids import Ids
from slack_emulator.records import Recorder
from slack_emulator.response_urls import ResponseUrls
from slack_emulator.socket_mode_server import SocketModeServer
from slack_emulator.timekeeping import Clock
from slack_emulator.triggers import Triggers
from slack_emulator.workspace import Workspace


@dataclass(frozen=True)
class Core:
    app: AppIdentity
    clock: Clock
    ids: Ids
    changes: Changes
    recorder: Recorder
    workspace: Workspace
    triggers: Triggers
    response_urls: ResponseUrls
    socket: SocketModeServer
    deliverer: Deliverer


def build_core(
    *, app: AppIdentity, clock: Clock, seed: int | None, settings: DeliverySettings
) -> Core:
    changes = Changes()
    ids = Ids(clock, seed)
    recorder = Recorder(changes)
    workspace = Workspace(app, ids, clock, changes)
    socket = SocketModeServer(app, ids, changes)
    return Core(
        app=app,
        clock=clock,
        ids=ids,
        changes=changes,
        recorder=recorder,
        workspace=workspace,
        triggers=Triggers(ids, clock),
        response_urls=ResponseUrls(app, ids, clock, workspace, recorder),
        socket=socket,
        deliverer=Deliverer(settings, socket, recorder),
    )
