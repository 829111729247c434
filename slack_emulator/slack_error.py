"""The one error the emulated Slack raises internally: what the Web API would answer."""

from __future__ import annotations

from slack_emulator.wire import JsonDict


class SlackError(Exception):
    """`{"ok": false, "error": code}`; `messages` go to `response_metadata.messages`."""

    def __init__(self, code: str, *, messages: list[str] | None = None) -> None:
        super().__init__(code if not messages else f"{code}: {'; '.join(messages)}")
        self.code = code
        self.messages = messages or []

    def to_wire(self) -> JsonDict:
        body: JsonDict = {"ok": False, "error": self.code}
        if self.messages:
            body["response_metadata"] = {"messages": list(self.messages)}
        return body
