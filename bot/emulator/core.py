"""The emulated Slack's parts, built once per emulator and passed to whatever needs them."""

from __future__ import annotations

from dataclasses import dataclass

from bot.emulator.clock import Clock
from bot.emulator.delivery import Deliverer, DeliverySettings
from bot.emulator.identity import AppIdentity
from bot.emulator.ids import Ids
from bot.emulator.records import Recorder
from bot.emulator.response_urls import ResponseUrls
from bot.emulator.signals import Changes
from bot.emulator.socket_mode import SocketModeServer
from bot.emulator.triggers import Triggers
from bot.emulator.workspace import Workspace


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
