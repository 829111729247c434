"""A small reading of rendered HTML for tests: every element with its attributes and text."""

from __future__ import annotations

from dataclasses import dataclass, field
from html.parser import HTMLParser

VOID = frozenset({"input", "hr", "br", "img", "meta", "link"})


@dataclass
class Element:
    tag: str
    attrs: dict[str, str | None]
    text: str = ""
    children: list[Element] = field(default_factory=list)

    def descendants(self) -> list[Element]:
        """Every element inside this one, in document order."""
        found: list[Element] = []
        for child in self.children:
            found.append(child)
            found.extend(child.descendants())
        return found


class _Reader(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.root = Element("#root", {})
        self.stack = [self.root]
        self.all: list[Element] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        element = Element(tag, dict(attrs))
        self.stack[-1].children.append(element)
        self.all.append(element)
        if tag not in VOID:
            self.stack.append(element)

    def handle_endtag(self, tag: str) -> None:
        for index in range(len(self.stack) - 1, 0, -1):
            if self.stack[index].tag == tag:
                del self.stack[index:]
                return

    def handle_data(self, data: str) -> None:
        for element in self.stack:
            element.text += data


def elements(markup: str) -> list[Element]:
    """Every element of `markup`, in document order."""
    reader = _Reader()
    reader.feed(markup)
    reader.close()
    return reader.all


def text(markup: str) -> str:
    """The text a person reads."""
    reader = _Reader()
    reader.feed(markup)
    reader.close()
    return reader.root.text


def find(markup: str, tag: str, **attrs: str) -> list[Element]:
    """Elements with this tag and these attribute values (`class_` for class, `data_el` for
    data-el: underscores become dashes, a trailing one is dropped)."""
    wanted = {k.rstrip("_").replace("_", "-"): v for k, v in attrs.items()}
    return [
        e
        for e in elements(markup)
        if e.tag == tag and all(e.attrs.get(k) == v for k, v in wanted.items())
    ]
