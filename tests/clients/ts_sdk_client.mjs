// The TypeScript MCP SDK's Client calling ask_user_question on our stdio server
// (`python -m bot mcp`): argv[2] is the call's `timeout` in ms, argv[3] "reset" to pass
// resetTimeoutOnProgress. Prints the result's text, or "error: <message>", as one JSON line.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

const [timeout, reset] = [Number(process.argv[2]), process.argv[3] === "reset"];
const transport = new StdioClientTransport({
  command: process.env.PYTHON,
  args: ["-m", "bot", "mcp"],
  env: process.env,
});
const client = new Client({ name: "ts-sdk-test", version: "1.0.0" });
await client.connect(transport);
const questions = [{ id: "db", question: "Which database?", options: [{ label: "Postgres" }, { label: "SQLite" }] }];
try {
  const result = await client.callTool(
    { name: "ask_user_question", arguments: { questions } },
    undefined,
    { timeout, resetTimeoutOnProgress: reset, onprogress: () => {} },
  );
  console.log(JSON.stringify({ text: result.content[0].text }));
} catch (error) {
  console.log(JSON.stringify({ error: String(error.message) }));
}
await client.close();
