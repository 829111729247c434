"""Agent text made safe and sized for Slack: escaping and truncation."""

from __future__ import annotations

ELLIPSIS = "…"


def escape(text: str) -> str:
    """Escape agent text for mrkdwn so `<!channel>`, `<@U…>` and `<url|label>` stay plain text.

    Slack's only entities in mrkdwn are `&`, `<` and `>`; everything that pings or links is
    spelled inside `<…>`, so escaping these three neutralises all of that. It leaves bold,
    emoji and quotes alone: agent text goes through `bot.render.agent_text` instead.
    """
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def unescape(text: str) -> str:
    """What a person typed, from the escaped text Slack sends in message events."""
    return text.replace("&lt;", "<").replace("&gt;", ">").replace("&amp;", "&")


def truncate(text: str, limit: int) -> str:
    """`text` cut to at most `limit` characters, ending in an ellipsis when cut."""
    if len(text) <= limit:
        return text
    return text[: limit - 1] + ELLIPSIS


def cut_escaped(escaped: str, limit: int) -> str:
    """Already-escaped mrkdwn cut to `limit` characters without splitting an entity."""
    if len(escaped) <= limit:
        return escaped
    return escaped[: _safe_cut(escaped, limit - 1)] + ELLIPSIS


def escaped_within(text: str, limit: int) -> str:
    """Escape `text` and cut it so the *escaped* form fits `limit` without splitting an entity."""
    escaped = escape(text)
    if len(escaped) <= limit:
        return escaped
    out: list[str] = []
    size = 0
    for char in text:
        piece = escape(char)
        if size + len(piece) > limit - 1:
            break
        out.append(piece)
        size += len(piece)
    return "".join(out) + ELLIPSIS


def chunks(text: str, limit: int) -> list[str]:
    """Split escaped `text` into pieces of at most `limit` characters, at line ends when possible."""
    pieces: list[str] = []
    current = ""
    for line in text.splitlines(keepends=True):
        while len(line) > limit:
            if current:
                pieces.append(current)
                current = ""
            cut = _safe_cut(line, limit)
            pieces.append(line[:cut])
            line = line[cut:]
        if len(current) + len(line) > limit:
            pieces.append(current)
            current = ""
        current += line
    if current:
        pieces.append(current)
    return pieces


def _safe_cut(escaped: str, limit: int) -> int:
    # Never split "&amp;" and friends in two: move the cut before an unfinished entity
    # (unless the entity starts the piece, where moving would make no progress).
    amp = escaped.rfind("&", max(0, limit - 4), limit)
    if amp > 0 and ";" not in escaped[amp:limit]:
        return amp
    return limit
