"""An MCP server's form answered by a person in Slack: the `mcp` client, the relay, the bot."""

from __future__ import annotations

import asyncio

from mcp import Client
from mcp.types import TextContent

from bot.service.server import Server
from provider import Agent, AgentRegistry, RelayProvider, UserQuestionService
from provider.elicitation import elicitation_callback
from slack_emulator import SlackEmulator

from ...provider.mcp_server import eliciting_server
from ..harness import ALICE, CHANNEL
from .harness import RELAY_TOKEN
from .test_relay import posted


async def test_a_person_fills_an_mcp_servers_form_in_slack(
    server: Server, emu: SlackEmulator
) -> None:
    agents = AgentRegistry()
    agent = Agent("mcp-host-1", name="Deploy host")
    agents.enter(agent)
    service = UserQuestionService(agents)
    async with RelayProvider(server.url, RELAY_TOKEN) as relay:
        service.register_provider(relay)
        callback = elicitation_callback(service, agent=agent)
        async with Client(eliciting_server(), mode="legacy", elicitation_callback=callback) as mcp:
            calling = asyncio.create_task(mcp.call_tool("deploy", {}))
            message = await posted(emu)
            alice = emu.person(ALICE)
            await alice.choose(message, block_id="env", value="1")
            await alice.type(message, block_id="replicas", text="4")
            await alice.choose(message, block_id="migrate", value="0")
            await alice.check(message, block_id="regions", values=["1"])
            await alice.click(message, text="Submit")
            result = await calling
    [content] = result.content
    assert isinstance(content, TextContent)
    assert content.text == (
        'accept {"env":"production","replicas":4,"migrate":true,"regions":["us"]}'
    )
    root = emu.message(CHANNEL, str(message.thread_ts))
    assert root.text == "Deploy host needs answers from people"
