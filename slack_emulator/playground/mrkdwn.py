"""Slack text as HTML: mrkdwn and plain_text objects, the way Slack's client shows them.

Pure and escaping: every character of the input reaches the page as text. Slack's own markup
(`*bold*`, `_italic_`, `~strike~`, code, quotes, `<…>` mentions and links, `:emoji:`) becomes
a fixed set of tags the renderer writes itself; nothing from the text is ever copied into a tag
or an attribute except an http(s)/mailto link target, escaped. A broadcast such as
`<!channel>` shows as the highlighted word Slack shows, and notifies nobody here.
"""

from __future__ import annotations

import html
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, Final

from slack_emulator import EMOJI

SAFE_SCHEMES: Final = ("http://", "https://", "mailto:")
"""The only link targets a page gets; `javascript:` and friends stay text."""

# Private-use characters hold finished HTML while the rest of the text is escaped; any the
# input itself carries are dropped first, so text can never forge one.
_HELD_BASE: Final = 0xF0000
_HELD: Final = re.compile("[\U000f0000-\U000ffffd]")
_CODE_BLOCK: Final = re.compile(r"```\n?(.*?)```", re.DOTALL)
_INLINE_CODE: Final = re.compile(r"`([^`\n]+)`")
_TOKEN: Final = re.compile(r"<([^<>\n]+)>")
_EMOJI: Final = re.compile(r":([a-z0-9_+\-]+):")
_LAST_SECOND: Final = 253402300799
"""9999-12-31 23:59:59 UTC: a later date token shows its fallback (no date type holds it)."""
_ENTITY: Final = re.compile(r"&(lt|gt|amp);")
_EMPHASIS: Final = (
    (re.compile(r"(?<![\w*])\*(?!\s)([^*\n]+?)(?<!\s)\*(?![\w*])"), "b"),
    (re.compile(r"(?<![\w_])_(?!\s)([^_\n]+?)(?<!\s)_(?![\w_])"), "i"),
    (re.compile(r"(?<![\w~])~(?!\s)([^~\n]+?)(?<!\s)~(?![\w~])"), "s"),
)


@dataclass(frozen=True)
class Names:
    """How ids read: a user's, channel's and user group's name (None when unknown), and where
    a Slack link should go inside the page (None: leave it as it is)."""

    user: Callable[[str], str | None] = lambda _: None
    channel: Callable[[str], str | None] = lambda _: None
    group: Callable[[str], str | None] = lambda _: None
    local_link: Callable[[str], str | None] = lambda _: None


def unescape(text: str) -> str:
    """Slack's three entities back to characters, in one pass (`&amp;lt;` stays `&lt;`)."""
    return _ENTITY.sub(lambda m: {"lt": "<", "gt": ">", "amp": "&"}[m[1]], text)


def emoji(text: str) -> str:
    """`:shortcode:` as the emoji, for the shortcodes this page knows."""
    return _EMOJI.sub(lambda m: EMOJI.get(m[1], m[0]), text)


def plain(text_object: Mapping[str, Any] | None, names: Names | None = None) -> str:
    """A text object (plain_text or mrkdwn) as HTML; "" for None."""
    if not text_object:
        return ""
    text = str(text_object.get("text", ""))
    if text_object.get("type") == "mrkdwn":
        return mrkdwn(text, names or Names())
    shown = html.escape(_HELD.sub("", text))
    return emoji(shown) if text_object.get("emoji", True) else shown


def mrkdwn(text: str, names: Names) -> str:
    """A mrkdwn string as HTML."""
    held: list[str] = []

    def hold(markup: str) -> str:
        held.append(markup)
        return chr(_HELD_BASE + len(held) - 1)

    text = _HELD.sub("", text)
    text = _CODE_BLOCK.sub(
        lambda m: hold(f'<pre class="sk-pre">{html.escape(unescape(m[1]))}</pre>'), text
    )
    text = _INLINE_CODE.sub(
        lambda m: hold(f'<code class="sk-code">{html.escape(unescape(m[1]))}</code>'), text
    )
    text = _TOKEN.sub(lambda m: hold(_token(m[1], names)), text)
    text = html.escape(unescape(text), quote=True)
    for pattern, tag in _EMPHASIS:
        text = pattern.sub(rf"<{tag}>\1</{tag}>", text)
    text = emoji(text)
    text = _quotes(text.split("\n"))
    return _HELD.sub(lambda m: held[ord(m[0]) - _HELD_BASE], text)


def _quotes(lines: list[str]) -> str:
    """Lines starting with `>` (already escaped to `&gt;`) as quotes; the rest joined by <br>."""
    out: list[str] = []
    quote: list[str] = []
    for line in lines:
        if line.startswith("&gt;"):
            quote.append(line[4:].removeprefix(" "))
            continue
        if quote:
            out.append(f'<blockquote class="sk-quote">{"<br>".join(quote)}</blockquote>')
            quote = []
        out.append(line + "<br>")
    if quote:
        out.append(f'<blockquote class="sk-quote">{"<br>".join(quote)}</blockquote>')
    joined = "".join(out)
    return joined.removesuffix("<br>")


def _token(inner: str, names: Names) -> str:
    """One `<…>` token: a mention, channel, broadcast, date or link."""
    body, _, label = inner.partition("|")
    label = unescape(label)
    if body.startswith("@"):
        shown = names.user(body[1:]) or label or body[1:]
        return _mention("@" + shown)
    if body.startswith("#"):
        shown = names.channel(body[1:]) or label or body[1:]
        return _mention("#" + shown)
    if body.startswith("!subteam^"):
        group_id = body.removeprefix("!subteam^")
        shown = names.group(group_id) or label.lstrip("@") or group_id
        return _mention("@" + shown)
    if body.startswith("!date^"):
        return date(body, label)
    if body.startswith("!"):
        # <!channel>, <!here>, <!everyone>: shown highlighted, as Slack does; no one is paged.
        word = body[1:].split("^", 1)[0]
        return _mention("@" + (label or word), broadcast=True)
    url = unescape(body)
    shown = label or url
    if not url.startswith(SAFE_SCHEMES):
        return html.escape(shown)
    local = names.local_link(url)
    if local is not None:
        return f'<a class="sk-link" href="{html.escape(local)}">{html.escape(shown)}</a>'
    return (
        f'<a class="sk-link" href="{html.escape(url)}" target="_blank" '
        f'rel="noopener noreferrer">{html.escape(shown)}</a>'
    )


def date(body: str, fallback: str) -> str:
    """A `<!date^SECONDS^FORMAT[^LINK]|fallback>` token: the fallback, in an element carrying
    the time and format, which the page's script shows in the reader's own time zone."""
    _, seconds, *rest = body.split("^")
    shown = html.escape(fallback or body)
    if not seconds.isdigit() or int(seconds) > _LAST_SECOND or not rest:
        return shown
    at = datetime.fromtimestamp(int(seconds), UTC).isoformat()
    return (
        f'<time class="sk-date" datetime="{at}" data-ts="{int(seconds)}" '
        f'data-format="{html.escape(rest[0])}">{shown}</time>'
    )


def _mention(text: str, *, broadcast: bool = False) -> str:
    kind = "sk-mention sk-broadcast" if broadcast else "sk-mention"
    return f'<span class="{kind}">{html.escape(text)}</span>'
