"""An MCP server (the `mcp` SDK's own `MCPServer`) whose tools elicit, for callback tests."""

from __future__ import annotations

from typing import Literal

from mcp.server import MCPServer
from mcp.server.mcpserver import Context
from pydantic import BaseModel, Field


class DeploySettings(BaseModel):
    """The form the `deploy` tool asks for."""

    env: Literal["staging", "production"] = Field(title="Environment")
    replicas: int = Field(title="Replicas", ge=1, le=10)
    migrate: bool = Field(title="Run the migration?")
    regions: list[Literal["eu", "us"]] = Field(title="Regions")


def eliciting_server() -> MCPServer:
    """A server with `deploy` (a form) and `login` (URL mode); each reports what it got."""
    server = MCPServer("deployer")

    @server.tool()
    async def deploy(ctx: Context) -> str:
        """Ask for deploy settings and report the outcome."""
        result = await ctx.elicit("Deploy settings?", DeploySettings)
        if result.action == "accept":
            return f"accept {result.data.model_dump_json()}"
        return result.action

    @server.tool()
    async def login(ctx: Context) -> str:
        """Ask the user to open a login page."""
        result = await ctx.elicit_url("Please sign in", "https://auth.example.com/login", "e-1")
        return result.action

    return server
