"""MCP elicitation forms as seam questions, and the answers back as form content.

An MCP server asks for input with a `requestedSchema`: a flat JSON Schema object whose
properties are strings, numbers, integers, booleans, single-select enums (`enum`, or `oneOf`
with `const`/`title`) and multi-select enums (`type: array` whose `items` carry the enum).
This module turns such a schema into questions (one per property, the property name as the
question id) and reads people's answers back into content the server can validate: enum
titles map back to their `const`, Yes/No to booleans, typed numbers to numbers.

Pure: no I/O and no mcp import, so both the Claude Code hook and the `mcp` client callback
share it. A schema this cannot show faithfully is a `FormError` naming the property and why,
never a guess.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import date, datetime
from enum import StrEnum
from typing import Any

from pydantic import BaseModel, ConfigDict, ValidationError

from .types import (
    AskUserQuestionAnswer,
    AskUserQuestionAnswerItem,
    AskUserQuestionItem,
    AskUserQuestionOption,
)

# What the MCP spec lets a form's content hold.
ContentValue = str | int | float | bool | list[str]

YES = "Yes"
NO = "No"
_EMAIL = re.compile(r"^[^@\s]+@[^@\s]+\.[^@\s]+$")
_WHOLE = re.compile(r"[+-]?[0-9]+")


class FormError(ValueError):
    """The requested schema cannot be shown as questions; the message says which part and why."""


class ElicitAction(StrEnum):
    """How an elicitation ends, in MCP's words."""

    ACCEPT = "accept"
    DECLINE = "decline"
    CANCEL = "cancel"


class ElicitOutcome(BaseModel):
    """An elicitation's result: the action, and the content when accepted."""

    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)  # built on first use

    action: ElicitAction
    content: dict[str, ContentValue] | None = None

    def to_wire(self) -> dict[str, Any]:
        """`{"action": …, "content": {…}}`, content left out unless accepted."""
        return self.model_dump(mode="json", exclude_none=True)


class Kind(StrEnum):
    """The shapes of form field this module can ask about."""

    CHOICE = "choice"  # single-select enum
    CHOICES = "choices"  # multi-select enum
    BOOLEAN = "boolean"
    TEXT = "text"
    NUMBER = "number"
    INTEGER = "integer"


@dataclass(frozen=True)
class Choice:
    """One option: the label people see, the value the server gets."""

    label: str
    value: str


@dataclass(frozen=True)
class FormField:
    """One property of the requested schema, as a question."""

    name: str
    kind: Kind
    title: str
    description: str | None = None
    required: bool = False
    choices: tuple[Choice, ...] = ()
    minimum: float | None = None
    maximum: float | None = None
    min_length: int | None = None
    max_length: int | None = None
    text_format: str | None = None
    min_items: int | None = None
    max_items: int | None = None

    def labels(self) -> list[str]:
        """The options offered, in schema order (Yes/No for a boolean, none for text)."""
        if self.kind is Kind.BOOLEAN:
            return [YES, NO]
        return [choice.label for choice in self.choices]


@dataclass(frozen=True)
class ElicitationForm:
    """A requested schema read into fields, with the message that introduces them."""

    message: str
    fields: tuple[FormField, ...]
    asker: str | None = None

    @classmethod
    def from_schema(
        cls, message: str, schema: Mapping[str, Any] | None, *, asker: str | None = None
    ) -> ElicitationForm:
        """Read `schema` (a flat JSON Schema object); `FormError` when it cannot be shown."""
        if not schema:
            raise FormError("the elicitation has no requested schema to ask about")
        if schema.get("type", "object") != "object":
            raise FormError(f"the requested schema must be an object, not {schema.get('type')!r}")
        properties = schema.get("properties")
        if not isinstance(properties, Mapping) or not properties:
            raise FormError("the requested schema has no properties to ask about")
        required = schema.get("required") or []
        if not isinstance(required, list):
            raise FormError("the requested schema's required must be a list of property names")
        fields = tuple(
            _field(str(name), spec, required=name in required) for name, spec in properties.items()
        )
        return cls(message=message, fields=fields, asker=asker)

    def questions(self, problems: Mapping[str, str] | None = None) -> list[AskUserQuestionItem]:
        """The questions to ask: every field, or only those with `problems` (said in the detail)."""
        fields = [f for f in self.fields if problems is None or f.name in problems]
        header = f"{self.asker}: {self.message}" if self.asker else self.message
        items: list[AskUserQuestionItem] = []
        for index, form_field in enumerate(fields):
            detail = _detail(form_field, (problems or {}).get(form_field.name))
            labels = form_field.labels()
            items.append(
                AskUserQuestionItem(
                    id=form_field.name,
                    question=form_field.title,
                    header=header if index == 0 else None,
                    detail=detail,
                    options=[AskUserQuestionOption(label=label) for label in labels] or None,
                    multi_select=form_field.kind is Kind.CHOICES,
                )
            )
        return items

    def read(
        self, answer: AskUserQuestionAnswer, asked: Sequence[str] | None = None
    ) -> tuple[dict[str, ContentValue], dict[str, str]]:
        """Content from `answer` for the fields `asked`, and a problem per unusable answer."""
        by_id = {item.id: item for item in answer.answers}
        content: dict[str, ContentValue] = {}
        problems: dict[str, str] = {}
        for form_field in self.fields:
            if asked is not None and form_field.name not in asked:
                continue
            item = by_id.get(form_field.name, AskUserQuestionAnswerItem(id=form_field.name))
            try:
                value = _value(form_field, item)
            except ValueError as why:
                problems[form_field.name] = str(why)
                continue
            if value is not None:
                content[form_field.name] = value
        return content, problems


def _detail(form_field: FormField, problem: str | None) -> str | None:
    lines = [f"Not accepted: {problem}"] if problem else []  # agent text: shown literally
    if form_field.description:
        lines.append(form_field.description)
    hint = _hint(form_field)
    if hint:
        lines.append(hint)
    return "\n\n".join(lines) or None


def _hint(form_field: FormField) -> str | None:
    """What a typed answer must look like, when the field constrains it."""
    parts: list[str] = []
    match form_field.kind:
        case Kind.NUMBER | Kind.INTEGER:
            parts.append("a whole number" if form_field.kind is Kind.INTEGER else "a number")
            if form_field.minimum is not None:
                parts.append(f"at least {_number_text(form_field.minimum)}")
            if form_field.maximum is not None:
                parts.append(f"at most {_number_text(form_field.maximum)}")
        case Kind.TEXT:
            if form_field.text_format:
                parts.append(f"format: {form_field.text_format}")
            if form_field.min_length is not None:
                parts.append(f"at least {form_field.min_length} characters")
            if form_field.max_length is not None:
                parts.append(f"at most {form_field.max_length} characters")
        case Kind.CHOICES:
            if form_field.min_items is not None:
                parts.append(f"choose at least {form_field.min_items}")
            if form_field.max_items is not None:
                parts.append(f"choose at most {form_field.max_items}")
        case _:
            pass
    return f"Answer with {', '.join(parts)}." if parts else None


def _number_text(number: float) -> str:
    return str(int(number)) if float(number).is_integer() else str(number)


class _Property(BaseModel):
    """The keywords of one property this module reads (others are ignored)."""

    model_config = ConfigDict(extra="ignore", populate_by_name=True, defer_build=True)

    type: str | None = None
    title: str | None = None
    description: str | None = None
    enum: list[Any] | None = None
    enumNames: list[str] | None = None
    oneOf: list[dict[str, Any]] | None = None
    anyOf: list[dict[str, Any]] | None = None
    items: dict[str, Any] | None = None
    minimum: float | None = None
    maximum: float | None = None
    minLength: int | None = None
    maxLength: int | None = None
    format: str | None = None
    minItems: int | None = None
    maxItems: int | None = None


def _field(name: str, spec: object, *, required: bool) -> FormField:
    if not name:
        raise FormError("a property of the requested schema has an empty name")
    if not isinstance(spec, Mapping):
        raise FormError(f"property {name!r} is not a schema object")
    try:
        prop = _Property.model_validate(spec)
    except ValidationError as error:
        raise FormError(f"property {name!r} is not a schema Slack can show: {error}") from error
    title = prop.title or name
    common: dict[str, Any] = {
        "name": name,
        "title": title,
        "description": prop.description,
        "required": required,
    }
    kind = prop.type
    if kind == "string" and (prop.enum is not None or prop.oneOf is not None):
        return FormField(kind=Kind.CHOICE, choices=_choices(name, prop), **common)
    if kind == "array":
        items = _Property.model_validate(prop.items or {})
        if items.enum is None and items.oneOf is None and items.anyOf is None:
            raise FormError(f"property {name!r} is an array without an enum of choices")
        return FormField(
            kind=Kind.CHOICES,
            choices=_choices(name, items),
            min_items=prop.minItems,
            max_items=prop.maxItems,
            **common,
        )
    if kind == "boolean":
        return FormField(kind=Kind.BOOLEAN, **common)
    if kind == "string":
        return FormField(
            kind=Kind.TEXT,
            min_length=prop.minLength,
            max_length=prop.maxLength,
            text_format=prop.format,
            **common,
        )
    if kind in ("number", "integer"):
        return FormField(
            kind=Kind.NUMBER if kind == "number" else Kind.INTEGER,
            minimum=prop.minimum,
            maximum=prop.maximum,
            **common,
        )
    raise FormError(
        f"property {name!r} has type {kind!r}; a form may hold strings, numbers, integers, "
        "booleans and enums"
    )


def _choices(name: str, prop: _Property) -> tuple[Choice, ...]:
    titled = prop.oneOf if prop.oneOf is not None else prop.anyOf
    if titled is not None:
        pairs = []
        for entry in titled:
            if "const" not in entry:
                raise FormError(f"property {name!r} has a choice without a const value")
            pairs.append((str(entry.get("title") or entry["const"]), entry["const"]))
    else:
        values = prop.enum or []
        names = prop.enumNames
        if names is not None and len(names) != len(values):
            raise FormError(
                f"property {name!r} has {len(names)} enumNames for {len(values)} values"
            )
        pairs = [(names[i] if names else str(v), v) for i, v in enumerate(values)]
    if not pairs:
        raise FormError(f"property {name!r} offers no choices")
    labels = [label for label, _ in pairs]
    if len(set(labels)) != len(labels) or "" in labels:
        raise FormError(f"property {name!r} has blank or repeated choice titles: {labels}")
    if not all(isinstance(value, str) for _, value in pairs):
        raise FormError(f"property {name!r} has a choice whose value is not a string")
    return tuple(Choice(label=label, value=str(value)) for label, value in pairs)


def _value(form_field: FormField, item: AskUserQuestionAnswerItem) -> ContentValue | None:
    """The content value one answer gives a field (None: left out); ValueError says why not."""
    typed = item.custom.strip() if item.custom else None
    if not item.selected and typed is None:
        if form_field.required:
            raise ValueError("an answer is required")
        return None
    match form_field.kind:
        case Kind.CHOICE:
            return _one_choice(form_field, item.selected, typed)
        case Kind.CHOICES:
            return _many_choices(form_field, item.selected, typed)
        case Kind.BOOLEAN:
            picked = item.selected[0] if item.selected else typed or ""
            yes_no = {"yes": True, "true": True, "no": False, "false": False}
            if picked.lower() not in yes_no:
                raise ValueError(f"“{picked}” is not Yes or No")
            return yes_no[picked.lower()]
        case Kind.TEXT:
            return _text(form_field, typed or "")
        case Kind.NUMBER | Kind.INTEGER:
            return _number(form_field, typed or "")


def _choice_of(form_field: FormField, label: str) -> Choice:
    for choice in form_field.choices:
        # A typed "Other" answer counts when it names a choice (case aside); nothing else does.
        if choice.label == label or choice.label.casefold() == label.casefold():
            return choice
    offered = ", ".join(f"“{c.label}”" for c in form_field.choices)
    raise ValueError(f"“{label}” is not one of the choices ({offered})")


def _one_choice(form_field: FormField, selected: list[str], typed: str | None) -> str:
    return _choice_of(form_field, typed if typed is not None else selected[0]).value


def _many_choices(form_field: FormField, selected: list[str], typed: str | None) -> list[str]:
    picked = {_choice_of(form_field, label).label for label in selected}
    if typed:
        picked |= {_choice_of(form_field, part.strip()).label for part in typed.split(",")}
    values = [c.value for c in form_field.choices if c.label in picked]  # offer order
    if form_field.min_items is not None and len(values) < form_field.min_items:
        raise ValueError(f"choose at least {form_field.min_items}")
    if form_field.max_items is not None and len(values) > form_field.max_items:
        raise ValueError(f"choose at most {form_field.max_items}")
    return values


def _text(form_field: FormField, text: str) -> str:
    if form_field.min_length is not None and len(text) < form_field.min_length:
        raise ValueError(f"“{text}” is shorter than {form_field.min_length} characters")
    if form_field.max_length is not None and len(text) > form_field.max_length:
        raise ValueError(f"the answer is longer than {form_field.max_length} characters")
    problem = _format_problem(form_field.text_format, text)
    if problem:
        raise ValueError(problem)
    return text


def _format_problem(text_format: str | None, text: str) -> str | None:
    checks: dict[str, tuple[str, Any]] = {
        "email": ("an email address", lambda t: _EMAIL.match(t) is not None),
        "uri": ("a URI such as https://example.com", lambda t: re.match(r"^[a-zA-Z][\w+.-]*:", t)),
        "date": ("a date such as 2026-12-31", date.fromisoformat),
        "date-time": ("a date and time such as 2026-12-31T09:00:00Z", datetime.fromisoformat),
    }
    if text_format not in checks:
        return None
    what, check = checks[text_format]
    try:
        ok = check(text)
    except ValueError:
        ok = False
    return None if ok else f"“{text}” is not {what}"


def _number(form_field: FormField, text: str) -> int | float:
    whole = form_field.kind is Kind.INTEGER
    if _WHOLE.fullmatch(text):
        number: int | float = int(text)  # exactly, however many digits
    else:
        try:
            number = float(text)
        except ValueError:
            number = math.nan
        if not math.isfinite(number) or (whole and not number.is_integer()):
            what = "a whole number" if whole else "a number"
            raise ValueError(f"“{text}” is not {what}")
        number = int(number) if whole else number
    if form_field.minimum is not None and number < form_field.minimum:
        raise ValueError(f"{text} is less than {_number_text(form_field.minimum)}")
    if form_field.maximum is not None and number > form_field.maximum:
        raise ValueError(f"{text} is more than {_number_text(form_field.maximum)}")
    return number
