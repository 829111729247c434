"""`python -m tests.clients.jsonrpc_tap LOG -- COMMAND…`: run an MCP server on stdio and append
every JSON-RPC line each way to LOG (`> ` from the client, `< ` from the server), so a test
reads exactly what a real client sent (which capabilities it declared, how it polled)."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path


async def _pump(
    source: asyncio.StreamReader, sink: asyncio.StreamWriter | None, log: Path, mark: str
) -> None:
    while line := await source.readline():
        with log.open("a") as out:
            out.write(mark + line.decode(errors="replace"))
        if sink is None:
            sys.stdout.buffer.write(line)
            sys.stdout.buffer.flush()
        else:
            sink.write(line)
            await sink.drain()
    if sink is not None:
        sink.close()


async def _main(log: Path, command: list[str]) -> int:
    loop = asyncio.get_running_loop()
    stdin = asyncio.StreamReader()
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(stdin), sys.stdin)
    proc = await asyncio.create_subprocess_exec(
        *command, stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE
    )
    assert proc.stdin is not None
    assert proc.stdout is not None
    to_server = asyncio.ensure_future(_pump(stdin, proc.stdin, log, "> "))
    await _pump(proc.stdout, None, log, "< ")
    to_server.cancel()
    return await proc.wait()


if __name__ == "__main__":
    log_path, separator, *rest = sys.argv[1:]
    assert separator == "--", "usage: jsonrpc_tap LOG -- COMMAND…"
    sys.exit(asyncio.run(_main(Path(log_path), rest)))
