"""Block Kit as a terminal shows it: what a person would read in Slack, as plain lines.

Pure: blocks (as the emulator stores them), a width and a colour switch in; text and the
numbered controls out. Every interactive element gets a number, counted in block order the
way the emulator finds elements (actions elements, section accessories, input elements), so
a prompt can say "2" and mean the same element the person sees as `[2]`. Options are
numbered from 1 within their element.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Final, TypeAlias

from slack_emulator import View
from slack_emulator.elements import types_used_by
from slack_emulator.terminal.ansi import BOLD, DIM, GREEN, RED, strip_ansi, visible_width, wrap
from slack_emulator.terminal.controls import Choice, Control, Rendered, control_kind
from slack_emulator.terminal.markup import Json, Style, markdown, mrkdwn, plain, rich_text, text_of

StateValues: TypeAlias = Mapping[str, Mapping[str, Json]]

_MENUS: Final = types_used_by("select") - {"overflow"}
"""Menus shown folded behind a placeholder (an overflow menu shows as `⋯`)."""

# A modal's close and submit labels sit in single angle quotation marks.
_OPEN: Final = "\N{SINGLE LEFT-POINTING ANGLE QUOTATION MARK}"
_SHUT: Final = "\N{SINGLE RIGHT-POINTING ANGLE QUOTATION MARK}"


def render_blocks(
    blocks: Sequence[Json],
    style: Style,
    *,
    state: StateValues | None = None,
    errors: Mapping[str, str] | None = None,
) -> Rendered:
    """Blocks as terminal text with their numbered controls. `state` is `state.values`
    (what a modal's person has picked so far; initial values otherwise); `errors` are a
    modal's input errors by block_id."""
    renderer = _Renderer(style, state or {}, errors or {})
    for block in blocks:
        renderer.block(block)
    return Rendered("\n".join(renderer.lines), tuple(renderer.controls))


def render_message(
    text: str,
    blocks: Sequence[Json],
    style: Style,
    *,
    attachments: Sequence[Json] = (),
) -> Rendered:
    """A message: its blocks, or its mrkdwn `text` when it has none; then any legacy
    attachments' text behind a bar."""
    rendered = (
        render_blocks(blocks, style) if blocks else Rendered(wrap(mrkdwn(text, style), style.width))
    )
    bars: list[str] = []
    for attachment in attachments:
        parts = [
            str(attachment.get(key))
            for key in ("pretext", "title", "text")
            if isinstance(attachment.get(key), str)
        ] or [str(attachment.get("fallback", ""))]
        body = wrap(mrkdwn("\n".join(parts), style), style.width - 2)
        bars.extend("▌ " + line for line in body.split("\n"))
    if not bars:
        return rendered
    return Rendered("\n".join([rendered.text, *bars]), rendered.controls)


def render_view(view: View, style: Style) -> Rendered:
    """A modal (or Home tab): its title on a top rule, its blocks behind a bar (with the
    person's current input and the app's errors), its close and submit labels below."""
    inner = render_blocks(
        view.blocks,
        Style(max(style.width - 2, 10), style.color, style.names),
        state=view.state,
        errors=view.errors,
    )
    title = plain(view.title or ("Home" if view.type == "home" else "Modal"))
    top = f"┌─ {style.paint(BOLD, title)} "
    lines = [top + "─" * max(style.width - visible_width(top), 3)]
    lines.extend(("│ " + line).rstrip(" ") for line in inner.text.split("\n"))
    if view.type == "modal":
        labels = [f"{_OPEN}{plain(view.close or 'Cancel')}{_SHUT}"]
        if view.submit:
            labels.append(style.paint(GREEN, f"{_OPEN}{plain(view.submit)}{_SHUT}"))
        bottom = "└─ " + "  ".join(labels) + " "
        lines.append(bottom + "─" * max(style.width - visible_width(bottom), 3))
    return Rendered("\n".join(lines), inner.controls)


class _Renderer:
    def __init__(self, style: Style, state: StateValues, errors: Mapping[str, str]) -> None:
        self.style = style
        self.state = state
        self.errors = errors
        self.lines: list[str] = []
        self.controls: list[Control] = []
        self.previous: object = None

    def add(self, text: str) -> None:
        self.lines.extend(wrap(text, self.style.width).split("\n"))

    def block(self, block: Json) -> None:
        kind = block.get("type")
        style = self.style
        # A blank line sets each input (a question of a form) apart from its neighbours.
        if self.lines and "input" in (kind, self.previous):
            self.lines.append("")
        self.previous = kind
        if kind == "header":
            self.add(style.paint(BOLD, text_of(block.get("text"), style)))
        elif kind == "section":
            self.section(block)
        elif kind == "context":
            parts = [
                f"[{element.get('alt_text', 'image')}]"
                if element.get("type") == "image"
                else text_of(element, style)
                for element in block.get("elements") or []
            ]
            self.add(style.paint(DIM, "  ".join(p for p in parts if p)))
        elif kind == "divider":
            self.lines.append("─" * style.width)
        elif kind == "actions":
            self.actions(block)
        elif kind == "input":
            self.input(block)
        elif kind == "markdown":
            self.add(markdown(str(block.get("text", "")), style))
        elif kind == "rich_text":
            self.add(rich_text(block, style))
        elif kind == "image":
            title = text_of(block.get("title"), style)
            self.add(f"[image: {block.get('alt_text', '')}]" + (f" {title}" if title else ""))
        elif kind == "video":
            self.add(f"[video: {text_of(block.get('title'), style)}]")
        else:
            self.add(style.paint(DIM, f"[{kind} block]"))

    def section(self, block: Json) -> None:
        style = self.style
        text = text_of(block.get("text"), style)
        if text:
            self.add(text)
        for field_ in block.get("fields") or []:
            self.add(text_of(field_, style))
        accessory = block.get("accessory")
        if not isinstance(accessory, Mapping):
            return
        if accessory.get("type") == "image":
            self.add(f"[image: {accessory.get('alt_text', '')}]")
            return
        label = strip_ansi(text_of(block.get("text"), Style(style.width, False, style.names)))
        label = label.split("\n", 1)[0]
        control = self.number(block, accessory, label=label, in_input=False, dispatches=True)
        self.element(control, accessory)

    def actions(self, block: Json) -> None:
        run: list[str] = []
        for element in block.get("elements") or []:
            control = self.number(block, element, label="", in_input=False, dispatches=True)
            if control.kind == "button":
                run.append(self.button(control))
                continue
            self.flush_buttons(run)
            self.element(control, element)
        self.flush_buttons(run)

    def input(self, block: Json) -> None:
        style = self.style
        element = block.get("element")
        label = text_of(block.get("label"), style)
        optional = block.get("optional") is True
        head = style.paint(BOLD, label)
        self.add(head + (style.paint(DIM, " (optional)") if optional else ""))
        if isinstance(element, Mapping):
            control = self.number(
                block,
                element,
                label=strip_ansi(label),
                in_input=True,
                dispatches=block.get("dispatch_action") is True,
                optional=optional,
            )
            self.element(control, element)
        hint = text_of(block.get("hint"), style)
        if hint:
            self.add(style.paint(DIM, hint))
        error = self.errors.get(str(block.get("block_id", "")))
        if error:
            self.add(style.paint(RED, f"⚠ {error}"))

    def number(
        self,
        block: Json,
        element: Json,
        *,
        label: str,
        in_input: bool,
        dispatches: bool,
        optional: bool = True,
    ) -> Control:
        element_type = str(element.get("type", ""))
        kind = control_kind(element_type)
        style = Style(self.style.width, False, self.style.names)
        if kind == "button":
            label = text_of(element.get("text"), style)
        elif not label:
            label = text_of(element.get("placeholder"), style) or element_type
        choices = tuple(
            Choice(n, str(option.get("value", "")), text_of(option.get("text"), style))
            for n, option in enumerate(_options(element), start=1)
        )
        url = element.get("url")
        confirm = element.get("confirm")
        control = Control(
            number=len(self.controls) + 1,
            kind=kind,
            type=element_type,
            block_id=str(block.get("block_id", "")),
            action_id=str(element.get("action_id", "")),
            label=label,
            options=choices,
            in_input=in_input,
            optional=optional,
            dispatches=dispatches,
            style=element.get("style") if isinstance(element.get("style"), str) else None,
            url=url if isinstance(url, str) else None,
            confirm=confirm if isinstance(confirm, Mapping) else None,
        )
        self.controls.append(control)
        return control

    def button(self, control: Control) -> str:
        colour = {"primary": GREEN, "danger": RED}.get(control.style or "")
        label = plain(control.label)
        shown = self.style.paint(colour, label) if colour else label
        link = " ↗" if control.url else ""
        return f"{self.style.paint(BOLD, f'[{control.number}]')} {shown}{link}"

    def flush_buttons(self, run: list[str]) -> None:
        """Buttons side by side, as many to a line as fit; never one split across lines."""
        line = ""
        for item in run:
            if line and visible_width(line) + 2 + visible_width(item) > self.style.width:
                self.lines.append(line)
                line = ""
            line = f"{line}  {item}" if line else item
        if line:
            self.lines.append(line)
        run.clear()

    def element(self, control: Control, element: Json) -> None:
        style = self.style
        tag = style.paint(BOLD, f"[{control.number}]")
        chosen = _chosen(element, self.state.get(control.block_id, {}).get(control.action_id))
        if control.kind == "button":
            self.add(self.button(control))
            return
        if control.kind == "text":
            if isinstance(chosen, str) and chosen:
                self.add(f"{tag} ✎ “{chosen}”")
            else:
                placeholder = text_of(element.get("placeholder"), style) or "type here"
                self.add(f"{tag} ✎ " + style.paint(DIM, f"({placeholder})"))
            return
        if control.kind == "other":
            self.add(f"{tag} {control.type} " + style.paint(DIM, "(not usable in the terminal)"))
            return
        many = control.kind == "many"
        overflow = control.type == "overflow"
        if control.type in _MENUS:
            placeholder = text_of(element.get("placeholder"), style)
            head = f"▾ {placeholder or ('Choose any' if many else 'Choose one')}"
        elif overflow:
            head = "⋯"
        else:
            head = "choose any:" if many else "choose one:"
        self.add(f"{tag} " + style.paint(DIM, head))
        picked = set(chosen) if isinstance(chosen, list) else {chosen}
        groups = element.get("option_groups")
        number = 0
        for group in groups if isinstance(groups, list) else [None]:
            options = group.get("options") if group else element.get("options")
            if group is not None:
                self.add("    " + style.paint(DIM, text_of(group.get("label"), style) + ":"))
            for option in options or []:
                number += 1
                value = option.get("value")
                mark = "" if overflow else ("[x] " if many else "(•) ")
                if not overflow and value not in picked:
                    mark = "[ ] " if many else "( ) "
                label = text_of(option.get("text"), style)
                description = text_of(option.get("description"), style)
                about = style.paint(DIM, f" — {description}") if description else ""
                self.add(f"    {number}) {mark}{label}{about}")


def _options(element: Json) -> list[Json]:
    options = list(element.get("options") or [])
    for group in element.get("option_groups") or []:
        options.extend(group.get("options") or [])
    return options


def _chosen(element: Json, entry: Json | None) -> Any:
    """The element's current value: from `state.values` when there, else its initial one
    (option values for selects, radios and checkboxes; text for inputs)."""
    if entry is not None:
        for key in ("selected_options", "selected_option", "value"):
            if key in entry:
                return _values(entry[key])
        return None
    for key in ("initial_options", "initial_option", "initial_value"):
        if key in element:
            return _values(element[key])
    return None


def _values(found: Any) -> Any:
    if isinstance(found, list):
        return [o.get("value") for o in found if isinstance(o, Mapping)]
    if isinstance(found, Mapping):
        return found.get("value")
    return found
