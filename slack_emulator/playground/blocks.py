"""Block Kit as HTML: every block and element the emulator accepts, drawn as Slack draws it.

Pure: blocks (as the emulator stores them), the person's draft (`state.values`), the input
errors the app answered with, and a `Names` lookup in; HTML out. Every text is escaped by
`mrkdwn`/`markdown`; ids and values reach attributes only through `html.escape`.

Interactive elements carry what the page's script needs to act through the emulator's people
API: `data-el` (the element type), `data-block`, `data-action`, and `data-value` on options.
The surface they belong to (a message, an ephemeral message or a view) is named by the
enclosing element the page draws (`pages.py`).
"""

from __future__ import annotations

import html
from collections.abc import Mapping, Sequence
from typing import Any, Final, TypeAlias

from slack_emulator.playground.markdown_html import markdown
from slack_emulator.playground.mrkdwn import Names, emoji, mrkdwn, plain

Json: TypeAlias = Mapping[str, Any]
StateValues: TypeAlias = Mapping[str, Mapping[str, Json]]

TEXT_INPUTS: Final = frozenset(
    {"plain_text_input", "email_text_input", "url_text_input", "number_input"}
)
_INPUT_TYPES: Final = {
    "plain_text_input": "text",
    "email_text_input": "email",
    "url_text_input": "url",
    "number_input": "number",
}


def render_blocks(
    blocks: Sequence[Json],
    names: Names,
    *,
    state: StateValues | None = None,
    errors: Mapping[str, str] | None = None,
) -> str:
    """The blocks of one surface as HTML, with the person's draft input filled in."""
    drawn = _Draw(names, state or {}, errors or {})
    return "".join(drawn.block(block) for block in blocks)


class _Draw:
    def __init__(self, names: Names, state: StateValues, errors: Mapping[str, str]) -> None:
        self.names = names
        self.state = state
        self.errors = errors

    # blocks -------------------------------------------------------------------------

    def block(self, block: Json) -> str:
        kind = str(block.get("type", ""))
        draw = {
            "header": self._header,
            "section": self._section,
            "context": self._context,
            "divider": self._divider,
            "actions": self._actions,
            "input": self._input,
            "markdown": self._markdown,
            "image": self._image,
            "rich_text": self._rich_text,
        }.get(kind)
        if draw is None:
            return f'<div class="bk bk-unknown">[{html.escape(kind)} block]</div>'
        try:
            return draw(block)
        except (AttributeError, TypeError, ValueError) as error:
            # A block the app sent in a shape Slack would refuse (the emulator records that
            # as a violation): say so in its place, and keep drawing the rest of the page.
            problem = html.escape(f"{type(error).__name__}: {error}")
            return (
                f'<div class="bk bk-unknown">[{html.escape(kind)} block not shown: {problem}]</div>'
            )

    def _header(self, block: Json) -> str:
        return f'<div class="bk bk-header">{plain(block.get("text"))}</div>'

    def _section(self, block: Json) -> str:
        parts: list[str] = []
        if block.get("text"):
            parts.append(f'<div class="bk-text">{self.text(block["text"])}</div>')
        fields = block.get("fields") or []
        if fields:
            cells = "".join(f'<div class="bk-field">{self.text(f)}</div>' for f in fields)
            parts.append(f'<div class="bk-fields">{cells}</div>')
        accessory = block.get("accessory")
        side = ""
        if isinstance(accessory, Mapping):
            side = f'<div class="bk-accessory">{self.element(block, accessory)}</div>'
        return f'<div class="bk bk-section"><div class="bk-main">{"".join(parts)}</div>{side}</div>'

    def _context(self, block: Json) -> str:
        items: list[str] = []
        for element in block.get("elements") or []:
            if element.get("type") == "image":
                items.append(self.image_chip(element))
            else:
                items.append(f"<span>{self.text(element)}</span>")
        return f'<div class="bk bk-context">{"".join(items)}</div>'

    def _divider(self, block: Json) -> str:
        return '<hr class="bk bk-divider">'

    def _actions(self, block: Json) -> str:
        elements = "".join(self.element(block, e) for e in block.get("elements") or [])
        return f'<div class="bk bk-actions">{elements}</div>'

    def _input(self, block: Json) -> str:
        block_id = str(block.get("block_id", ""))
        element = block.get("element") or {}
        optional = '<span class="bk-optional">(optional)</span>' if block.get("optional") else ""
        hint = block.get("hint")
        hint_html = f'<div class="bk-hint">{plain(hint)}</div>' if hint else ""
        error = self.errors.get(block_id)
        error_html = (
            f'<div class="bk-error" role="alert">{html.escape(error)}</div>' if error else ""
        )
        return (
            f'<div class="bk bk-input{" has-error" if error else ""}">'
            f'<label class="bk-label">{plain(block.get("label"))} {optional}</label>'
            f"{self.element(block, element)}{error_html}{hint_html}</div>"
        )

    def _markdown(self, block: Json) -> str:
        return f'<div class="bk bk-markdown">{markdown(str(block.get("text", "")))}</div>'

    def _image(self, block: Json) -> str:
        # The network is closed offline: the image is named, not fetched.
        title = block.get("title")
        caption = f'<div class="bk-image-title">{plain(title)}</div>' if title else ""
        alt = html.escape(str(block.get("alt_text", "")))
        return f'<div class="bk bk-image">{caption}<div class="bk-image-box">🖼 {alt}</div></div>'

    def _rich_text(self, block: Json) -> str:
        parts = [self.rich(element) for element in block.get("elements") or []]
        return f'<div class="bk bk-rich">{"".join(parts)}</div>'

    # elements -----------------------------------------------------------------------

    def element(self, block: Json, element: Json) -> str:
        kind = str(element.get("type", ""))
        ids = _ids(block, element)
        if kind in ("button", "workflow_button"):
            return self.button(ids, element)
        if kind == "overflow":
            return self.overflow(ids, element)
        if kind == "static_select":
            return self.static_select(block, ids, element)
        if kind == "multi_static_select":
            return self.multi_select(block, ids, element)
        if kind == "radio_buttons":
            return self.choices(block, ids, element, "radio")
        if kind == "checkboxes":
            return self.choices(block, ids, element, "checkbox")
        if kind in TEXT_INPUTS:
            return self.text_input(block, ids, element)
        if kind == "image":
            return self.image_chip(element)
        return f'<span class="bk-unsupported">[{html.escape(kind)}]</span>'

    def button(self, ids: str, element: Json) -> str:
        style = str(element.get("style", ""))
        classes = "sk-btn" + (f" sk-btn-{style}" if style in ("primary", "danger") else "")
        url = str(element.get("url", ""))
        confirm = element.get("confirm")
        dialog = self.confirm(confirm) if isinstance(confirm, Mapping) else ""
        marker = " data-confirm" if dialog else ""
        link = f' data-url="{html.escape(url)}"' if url.startswith(("http://", "https://")) else ""
        # The label is ellipsized when it is wider than its pane (CSS); the title shows it whole.
        title = html.escape(_raw(element.get("text")))
        return (
            f'<button type="button" class="{classes}" data-el="button"{ids}{marker}{link} '
            f'title="{title}"><span class="sk-btn-label">{plain(element.get("text"))}</span>'
            f"</button>{dialog}"
        )

    def confirm(self, confirm: Json) -> str:
        style = str(confirm.get("style", "primary"))
        yes = plain(confirm.get("confirm")) or "Yes"
        no = plain(confirm.get("deny")) or "Cancel"
        return (
            '<dialog class="sk-confirm">'
            f'<div class="sk-confirm-title">{plain(confirm.get("title"))}</div>'
            f'<div class="sk-confirm-text">{self.text(confirm.get("text") or {})}</div>'
            '<div class="sk-confirm-buttons">'
            f'<button type="button" class="sk-btn" data-confirm-no>{no}</button>'
            f'<button type="button" class="sk-btn sk-btn-{html.escape(style)}" data-confirm-yes>'
            f"{yes}</button></div></dialog>"
        )

    def overflow(self, ids: str, element: Json) -> str:
        items = "".join(
            f'<button type="button" class="sk-menu-item" data-value="{_value(option)}">'
            f"{plain(option.get('text'))}</button>"
            for option in element.get("options") or []
        )
        return (
            f'<details class="sk-overflow" data-el="overflow"{ids}>'
            f'<summary class="sk-btn sk-btn-icon" aria-label="More actions">⋮</summary>'
            f'<div class="sk-menu">{items}</div></details>'
        )

    def static_select(self, block: Json, ids: str, element: Json) -> str:
        chosen = self._chosen(block, element)
        placeholder = plain(element.get("placeholder")) or "Select an item"
        options = [
            f'<option value="" disabled{"" if chosen else " selected"}>{placeholder}</option>'
        ]
        for group_label, option in _options(element):
            selected = " selected" if option.get("value") in chosen else ""
            label = plain(option.get("text"))
            if group_label:
                label = f"{group_label} · {label}"
            options.append(f'<option value="{_value(option)}"{selected}>{label}</option>')
        return f'<select class="sk-select" data-el="static_select"{ids}>{"".join(options)}</select>'

    def multi_select(self, block: Json, ids: str, element: Json) -> str:
        chosen = self._chosen(block, element)
        picked = [plain(o.get("text")) for _, o in _options(element) if o.get("value") in chosen]
        summary = (
            "".join(f'<span class="sk-token">{label}</span>' for label in picked)
            if picked
            else f'<span class="sk-placeholder">{plain(element.get("placeholder")) or "Select items"}</span>'
        )
        rows = "".join(
            f'<label class="sk-menu-item"><input type="checkbox" value="{_value(option)}"'
            f"{' checked' if option.get('value') in chosen else ''}> {plain(option.get('text'))}</label>"
            for _, option in _options(element)
        )
        return (
            f'<details class="sk-multi" data-el="multi_static_select"{ids}>'
            f'<summary class="sk-select">{summary}</summary><div class="sk-menu">{rows}</div></details>'
        )

    def choices(self, block: Json, ids: str, element: Json, kind: str) -> str:
        chosen = self._chosen(block, element)
        group = html.escape(f"{block.get('block_id', '')}\x1f{element.get('action_id', '')}")
        rows: list[str] = []
        for option in element.get("options") or []:
            description = option.get("description")
            note = (
                f'<div class="sk-choice-note">{self.text(description)}</div>' if description else ""
            )
            checked = " checked" if option.get("value") in chosen else ""
            rows.append(
                f'<label class="sk-choice"><input type="{kind}" name="{group}" '
                f'value="{_value(option)}"{checked}><span><span class="sk-choice-text">'
                f"{self.text(option.get('text') or {})}</span>{note}</span></label>"
            )
        el = "radio_buttons" if kind == "radio" else "checkboxes"
        return f'<div class="sk-choices" data-el="{el}"{ids}>{"".join(rows)}</div>'

    def text_input(self, block: Json, ids: str, element: Json) -> str:
        entry = self._entry(block, element)
        value = entry.get("value") if entry else None
        if value is None:
            value = element.get("initial_value")
        text = html.escape(str(value or ""))
        placeholder = html.escape(_raw(element.get("placeholder")))
        limit = element.get("max_length")
        max_length = f' maxlength="{int(limit)}"' if isinstance(limit, int) else ""
        kind = str(element.get("type"))
        if element.get("multiline"):
            return (
                f'<textarea class="sk-textarea" data-el="{kind}"{ids} rows="3" '
                f'placeholder="{placeholder}"{max_length}>{text}</textarea>'
            )
        return (
            f'<input class="sk-input" type="{_INPUT_TYPES.get(kind, "text")}" data-el="{kind}"{ids} '
            f'placeholder="{placeholder}" value="{text}"{max_length}>'
        )

    def image_chip(self, element: Json) -> str:
        return f'<span class="bk-image-chip" title="{html.escape(str(element.get("alt_text", "")))}">🖼</span>'

    # text -----------------------------------------------------------------------------

    def text(self, text_object: Json | None) -> str:
        if not text_object:
            return ""
        if text_object.get("type") == "mrkdwn":
            return mrkdwn(str(text_object.get("text", "")), self.names)
        return plain(text_object)

    def rich(self, element: Json) -> str:
        """rich_text containers and their runs, as readable text."""
        kind = element.get("type")
        if kind in ("rich_text_section", "rich_text_quote", "rich_text_preformatted"):
            runs = "".join(self.rich_run(run) for run in element.get("elements") or [])
            tag = {"rich_text_quote": "blockquote", "rich_text_preformatted": "pre"}.get(
                str(kind), "div"
            )
            return f"<{tag}>{runs}</{tag}>"
        if kind == "rich_text_list":
            tag = "ol" if element.get("style") == "ordered" else "ul"
            items = "".join(f"<li>{self.rich(item)}</li>" for item in element.get("elements") or [])
            return f"<{tag}>{items}</{tag}>"
        return ""

    def rich_run(self, run: Json) -> str:
        kind = run.get("type")
        if kind == "text":
            shown = html.escape(str(run.get("text", ""))).replace("\n", "<br>")
            style = run.get("style") or {}
            for flag, tag in (("bold", "b"), ("italic", "i"), ("strike", "s"), ("code", "code")):
                if style.get(flag):
                    shown = f"<{tag}>{shown}</{tag}>"
            return shown
        if kind == "link":
            url = str(run.get("url", ""))
            return mrkdwn(f"<{url}|{run.get('text') or url}>", self.names)
        if kind == "user":
            return mrkdwn(f"<@{run.get('user_id', '')}>", self.names)
        if kind == "channel":
            return mrkdwn(f"<#{run.get('channel_id', '')}>", self.names)
        if kind == "emoji":
            return emoji(html.escape(f":{run.get('name', '')}:"))
        if kind == "broadcast":
            return mrkdwn(f"<!{run.get('range', 'here')}>", self.names)
        return ""

    # state ----------------------------------------------------------------------------

    def _entry(self, block: Json, element: Json) -> Json | None:
        return self.state.get(str(block.get("block_id", "")), {}).get(
            str(element.get("action_id", ""))
        )

    def _chosen(self, block: Json, element: Json) -> set[str]:
        """The option values the person has picked in this element (their draft)."""
        entry = self._entry(block, element)
        if entry is None:
            options = [element.get("initial_option"), *(element.get("initial_options") or [])]
            return {str(o.get("value")) for o in options if isinstance(o, Mapping)}
        picked = entry.get("selected_options")
        if picked is None and entry.get("selected_option") is not None:
            picked = [entry["selected_option"]]
        return {str(o.get("value")) for o in picked or [] if isinstance(o, Mapping)}


def _ids(block: Json, element: Json) -> str:
    return (
        f' data-block="{html.escape(str(block.get("block_id", "")))}"'
        f' data-action="{html.escape(str(element.get("action_id", "")))}"'
    )


def _value(option: Json) -> str:
    return html.escape(str(option.get("value", "")))


def _raw(text_object: Json | None) -> str:
    return str(text_object.get("text", "")) if text_object else ""


def _options(element: Json) -> list[tuple[str, Json]]:
    """Options with the label of their group ("" outside groups)."""
    found: list[tuple[str, Json]] = [("", o) for o in element.get("options") or []]
    for group in element.get("option_groups") or []:
        label = plain(group.get("label"))
        found.extend((label, o) for o in group.get("options") or [])
    return found
