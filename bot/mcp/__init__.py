"""`python -m bot mcp`: the MCP server whose tools ask in Slack."""
