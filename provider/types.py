"""The seam's wire vocabulary: questions, options, intents and answers.

Python attributes are snake_case; the wire accepts snake_case and camelCase (`multiSelect`)
and `to_wire()` writes the seam's own spelling. String fields are strict: a number where a
string belongs, or a string UTF-8 cannot encode, is an error naming the field, never a silent
conversion or a failure further on.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Annotated, Any, ClassVar, Literal

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    JsonValue,
    StrictBool,
    StrictStr,
    ValidationError,
    field_validator,
)
from pydantic_core import InitErrorDetails, PydanticCustomError

from .abort import AbortSignal
from .agents import Agent


def _utf8(value: str) -> str:
    # Python strings may hold lone surrogates (from JSON's "\udfff" escape), which no store,
    # wire or Slack message can carry: refuse them here, naming the field, not later.
    try:
        value.encode("utf-8")
    except UnicodeEncodeError as error:
        point = ord(value[error.start])
        raise ValueError(
            f"contains U+{point:04X} at index {error.start}, a lone surrogate that UTF-8 cannot encode"
        ) from None
    return value


# Every string of the seam: strictly a string (no number converted), and encodable as UTF-8.
Text = Annotated[StrictStr, AfterValidator(_utf8)]
NonEmptyStr = Annotated[Text, Field(min_length=1)]


def check_unique_ids(questions: Sequence[AskUserQuestionItem]) -> None:
    """Answers are routed by id, so one id must name one question. A repeat is reported at
    its own place, `questions.<index>.id` (raised from a `questions` validator)."""
    seen: set[str] = set()
    for index, question in enumerate(questions):
        if question.id in seen:
            raise ValidationError.from_exception_data(
                "questions",
                [
                    InitErrorDetails(
                        type=PydanticCustomError(
                            "duplicate_id", "duplicate question id {id}", {"id": repr(question.id)}
                        ),
                        loc=(index, "id"),
                        input=question.id,
                    )
                ],
            )
        seen.add(question.id)


def field_errors(error: ValidationError) -> list[tuple[str, str]]:
    """(dotted field path, message) for each problem pydantic found."""
    return [(".".join(str(p) for p in e["loc"]) or "body", e["msg"]) for e in error.errors()]


class WireModel(BaseModel):
    """Frozen, strict about unknown keys, both spellings in, the seam's spelling out."""

    model_config = ConfigDict(
        frozen=True,
        extra="forbid",
        validate_by_name=True,
        validate_by_alias=True,
        serialize_by_alias=True,
        # Built on first use, not at import: the Claude Code hook imports these before every
        # gated tool call and validates a few of them once.
        defer_build=True,
    )

    def to_wire(self) -> dict[str, Any]:
        """The JSON-ready wire form, with absent optional fields left out."""
        return self.model_dump(mode="json", exclude_none=True)


class AskUserQuestionOption(WireModel):
    """One choice. The label is both what the person sees and the value returned."""

    label: NonEmptyStr
    description: Text | None = None


class PlanReviewIntent(WireModel):
    """The question is a review of the plan in `detail`; `approve` names the approving option."""

    kind: Literal["plan-review"] = "plan-review"
    approve: Text = Field(
        description="The label of the option that approves: it must name one of the question's "
        "options, and the question must carry the plan in `detail` (else BAD_INTENT)."
    )
    label_field: ClassVar[str] = "approve"  # the field naming the option that says yes

    @property
    def label(self) -> str:
        """The label of the option that says yes (approves the plan)."""
        return self.approve


class ToolApprovalIntent(WireModel):
    """The question asks whether a tool may run; `allow` names the option that lets it."""

    kind: Literal["tool-approval"] = "tool-approval"
    allow: Text = Field(
        description="The label of the option that allows the tool to run: it must name one of "
        "the question's options (else BAD_INTENT)."
    )
    tool: Text | None = Field(default=None, description="The tool asking to run, e.g. Bash.")
    input: dict[str, JsonValue] | None = Field(
        default=None,
        description="The tool's input exactly as it will run if allowed: the reviewer is shown "
        "every field of it, and tool policies match on it.",
    )
    session: Text | None = Field(
        default=None,
        description="The agent session the call belongs to (Claude Code's session_id): a grant "
        "'for this session' covers the calls that name the same one.",
    )
    label_field: ClassVar[str] = "allow"

    @property
    def label(self) -> str:
        """The label of the option that says yes (allows the tool)."""
        return self.allow


# A tagged union on `kind`, so new intents can join without changing the items.
AskUserQuestionIntent = Annotated[
    PlanReviewIntent | ToolApprovalIntent, Field(discriminator="kind")
]


class AskUserQuestionItem(WireModel):
    """One question, with a caller-chosen id that the answer echoes."""

    id: NonEmptyStr = Field(description="Unique among the ask's questions; echoed in its answer.")
    question: NonEmptyStr
    detail: Text | None = None
    header: Text | None = None
    options: list[AskUserQuestionOption] | None = Field(
        default=None,
        description="The choices, labels unique; none asks for a free-text answer.",
    )
    multi_select: StrictBool = Field(default=False, alias="multiSelect")
    intent: AskUserQuestionIntent | None = None

    @field_validator("options")
    @classmethod
    def _labels_are_unique(
        cls, options: list[AskUserQuestionOption] | None
    ) -> list[AskUserQuestionOption] | None:
        # The label is the value: two equal labels could not be told apart in an answer.
        seen: set[str] = set()
        for option in options or []:
            if option.label in seen:
                raise PydanticCustomError(
                    "duplicate_label",
                    "duplicate option label {label}",
                    {"label": repr(option.label)},
                )
            seen.add(option.label)
        return options

    @property
    def labels(self) -> list[str]:
        """The offered labels, in offer order (empty for an optionless question)."""
        return [option.label for option in self.options or []]


class AskUserQuestionRequest(BaseModel):
    """One ask: its questions, and (at run time only) the calling agent and abort signal."""

    model_config = ConfigDict(
        frozen=True, extra="forbid", arbitrary_types_allowed=True, defer_build=True
    )

    questions: list[AskUserQuestionItem]
    agent: Agent | None = Field(default=None, exclude=True)
    signal: AbortSignal | None = Field(default=None, exclude=True)

    @field_validator("questions")
    @classmethod
    def _ids_are_unique(cls, questions: list[AskUserQuestionItem]) -> list[AskUserQuestionItem]:
        check_unique_ids(questions)
        return questions

    def to_wire(self) -> dict[str, Any]:
        """The JSON-ready wire form (`{"questions": [...]}`)."""
        return {"questions": [q.to_wire() for q in self.questions]}


class AskUserQuestionAnswerItem(WireModel):
    """The answer to one question: chosen labels and/or a free-text answer."""

    id: NonEmptyStr
    selected: list[Text] = Field(default_factory=list)
    custom: Text | None = None
    updated_input: dict[str, JsonValue] | None = Field(
        default=None,
        description="Only beside the approving label of a tool approval or plan review, when "
        "the reviewer edited before approving: a tool approval's whole input as edited (the "
        "same field names and JSON types as `intent.input`), or a plan review's "
        '`{"plan": <the amended plan>}`. The agent runs this instead of what it asked.',
    )


class AskUserQuestionAnswer(WireModel):
    """One answer item per question, in request order."""

    answers: list[AskUserQuestionAnswerItem]
