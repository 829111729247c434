"""Block Kit limit checks: one valid and one invalid payload per rule, Slack's wording."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from slack_sdk.models.blocks import (
    ActionsBlock,
    Block,
    ContextActionsBlock,
    ContextBlock,
    FeedbackButtonObject,
    HeaderBlock,
    InputBlock,
    SectionBlock,
)

from slack_emulator.block_checks import Issue, check_blocks, check_message_text, check_view
from slack_emulator.block_limits import LIMITS, rules

Json = dict[str, Any]


def x(n: int) -> str:
    return "x" * n


def plain(text: str) -> Json:
    return {"type": "plain_text", "text": text}


def mrkdwn(text: str) -> Json:
    return {"type": "mrkdwn", "text": text}


def section(text: str = "hi", **extra: Any) -> Json:
    return {"type": "section", "text": mrkdwn(text), **extra}


def button(action_id: str = "go", **extra: Any) -> Json:
    return {"type": "button", "action_id": action_id, "text": plain("Go"), "value": "v", **extra}


def actions(*elements: Json, **extra: Any) -> Json:
    return {"type": "actions", "elements": list(elements), **extra}


def option(value: str = "v", text: str = "Option", **extra: Any) -> Json:
    return {"text": plain(text), "value": value, **extra}


def options(n: int) -> list[Json]:
    return [option(f"v{i}") for i in range(n)]


def select(**extra: Any) -> Json:
    return {"type": "static_select", "action_id": "pick", "options": options(2), **extra}


def text_input(**extra: Any) -> Json:
    return {"type": "plain_text_input", "action_id": "answer", **extra}


def feedback(positive: Json | None = None, **extra: Any) -> Json:
    """Slack's documented example: 👍 and 👎 in a feedback_buttons element."""
    return {
        "type": "feedback_buttons",
        "action_id": "feedback_buttons_1",
        "positive_button": positive or {"text": plain("👍"), "value": "positive_feedback"},
        "negative_button": {"text": plain("👎"), "value": "negative_feedback"},
        **extra,
    }


def context_actions(*elements: Json) -> Json:
    return {"type": "context_actions", "elements": list(elements)}


def input_block(element: Json | None = None, **extra: Any) -> Json:
    return {
        "type": "input",
        "block_id": "q1",
        "label": plain("Question"),
        "element": element or text_input(),
        **extra,
    }


def confirm(**override: Any) -> Json:
    base = {
        "title": plain("Sure?"),
        "text": plain("Really"),
        "confirm": plain("Yes"),
        "deny": plain("No"),
    }
    return {**base, **override}


def modal(blocks: list[Json] | None = None, **extra: Any) -> Json:
    view = {
        "type": "modal",
        "title": plain("Title"),
        "submit": plain("Send"),
        "blocks": blocks if blocks is not None else [section()],
    }
    return {**view, **extra}


def home(blocks: list[Json]) -> Json:
    return {"type": "home", "blocks": blocks}


def in_message(*blocks: Json) -> Callable[[], list[Issue]]:
    return lambda: check_blocks(list(blocks), surface="message")


def in_view(view: Json) -> Callable[[], list[Issue]]:
    return lambda: check_view(view)


# (rule, valid, invalid, pointer, Slack's message) -- one row per rule the checker knows.
CASES = [
    pytest.param(
        "message.blocks",
        lambda: check_blocks([section()] * 50, surface="message"),
        lambda: check_blocks([section()] * 51, surface="message"),
        "/blocks",
        "no more than 50 items allowed",
        id="message.blocks",
    ),
    pytest.param(
        "modal.blocks",
        in_view(modal([section()] * 100)),
        in_view(modal([section()] * 101)),
        "/view/blocks",
        "no more than 100 items allowed",
        id="modal.blocks",
    ),
    pytest.param(
        "home.blocks",
        in_view(home([section()] * 100)),
        in_view(home([section()] * 101)),
        "/view/blocks",
        "no more than 100 items allowed",
        id="home.blocks",
    ),
    pytest.param(
        "message.text",
        lambda: check_message_text(x(40_000)),
        lambda: check_message_text(x(40_001)),
        "/text",
        "must be less than 40001 characters",
        id="message.text",
    ),
    pytest.param(
        "block_id",
        in_message(section(block_id=x(255))),
        in_message(section(block_id=x(256))),
        "/blocks/0/block_id",
        "must be less than 256 characters",
        id="block_id",
    ),
    pytest.param(
        "action_id",
        in_message(actions(button(x(255)))),
        in_message(actions(button(x(256)))),
        "/blocks/0/elements/0/action_id",
        "must be less than 256 characters",
        id="action_id",
    ),
    pytest.param(
        "section.text",
        in_message(section(x(3000))),
        in_message(section(x(3001))),
        "/blocks/0/text/text",
        "must be less than 3001 characters",
        id="section.text",
    ),
    pytest.param(
        "section.fields",
        in_message({"type": "section", "fields": [mrkdwn("f")] * 10}),
        in_message({"type": "section", "fields": [mrkdwn("f")] * 11}),
        "/blocks/0/fields",
        "no more than 10 items allowed",
        id="section.fields",
    ),
    pytest.param(
        "section.field",
        in_message({"type": "section", "fields": [mrkdwn(x(2000))]}),
        in_message({"type": "section", "fields": [mrkdwn(x(2001))]}),
        "/blocks/0/fields/0/text",
        "must be less than 2001 characters",
        id="section.field",
    ),
    pytest.param(
        "header.text",
        in_message({"type": "header", "text": plain(x(150))}),
        in_message({"type": "header", "text": plain(x(151))}),
        "/blocks/0/text/text",
        "must be less than 151 characters",
        id="header.text",
    ),
    pytest.param(
        "context.elements",
        in_message({"type": "context", "elements": [mrkdwn("c")] * 10}),
        in_message({"type": "context", "elements": [mrkdwn("c")] * 11}),
        "/blocks/0/elements",
        "no more than 10 items allowed",
        id="context.elements",
    ),
    pytest.param(
        "context.text",
        in_message({"type": "context", "elements": [mrkdwn(x(3000))]}),
        in_message({"type": "context", "elements": [mrkdwn(x(3001))]}),
        "/blocks/0/elements/0/text",
        "must be less than 3001 characters",
        id="context.text",
    ),
    pytest.param(
        "actions.elements",
        in_message(actions(*(button(f"b{i}") for i in range(25)))),
        in_message(actions(*(button(f"b{i}") for i in range(26)))),
        "/blocks/0/elements",
        "no more than 25 items allowed",
        id="actions.elements",
    ),
    pytest.param(
        "input.label",
        in_message(input_block(label=plain(x(2000)))),
        in_message(input_block(label=plain(x(2001)))),
        "/blocks/0/label/text",
        "must be less than 2001 characters",
        id="input.label",
    ),
    pytest.param(
        "input.hint",
        in_message(input_block(hint=plain(x(2000)))),
        in_message(input_block(hint=plain(x(2001)))),
        "/blocks/0/hint/text",
        "must be less than 2001 characters",
        id="input.hint",
    ),
    pytest.param(
        "image.image_url",
        in_message({"type": "image", "image_url": x(3000), "alt_text": "a"}),
        in_message({"type": "image", "image_url": x(3001), "alt_text": "a"}),
        "/blocks/0/image_url",
        "must be less than 3001 characters",
        id="image.image_url",
    ),
    pytest.param(
        "image.alt_text",
        in_message({"type": "image", "image_url": "https://x", "alt_text": x(2000)}),
        in_message({"type": "image", "image_url": "https://x", "alt_text": x(2001)}),
        "/blocks/0/alt_text",
        "must be less than 2001 characters",
        id="image.alt_text",
    ),
    pytest.param(
        "image.title",
        in_message(
            {"type": "image", "image_url": "https://x", "alt_text": "a", "title": plain(x(2000))}
        ),
        in_message(
            {"type": "image", "image_url": "https://x", "alt_text": "a", "title": plain(x(2001))}
        ),
        "/blocks/0/title/text",
        "must be less than 2001 characters",
        id="image.title",
    ),
    pytest.param(
        "markdown.text",
        in_message({"type": "markdown", "text": x(6000)}, {"type": "markdown", "text": x(6000)}),
        in_message({"type": "markdown", "text": x(6000)}, {"type": "markdown", "text": x(6001)}),
        "/blocks",
        "cumulative markdown text must be less than 12001 characters",
        id="markdown.text",
    ),
    pytest.param(
        "button.text",
        in_message(actions(button(text=plain(x(75))))),
        in_message(actions(button(text=plain(x(76))))),
        "/blocks/0/elements/0/text/text",
        "must be less than 76 characters",
        id="button.text",
    ),
    pytest.param(
        "button.value",
        in_message(actions(button(value=x(2000)))),
        in_message(actions(button(value=x(2001)))),
        "/blocks/0/elements/0/value",
        "must be less than 2001 characters",
        id="button.value",
    ),
    pytest.param(
        "button.url",
        in_message(actions(button(url=x(3000)))),
        in_message(actions(button(url=x(3001)))),
        "/blocks/0/elements/0/url",
        "must be less than 3001 characters",
        id="button.url",
    ),
    pytest.param(
        "button.accessibility_label",
        in_message(actions(button(accessibility_label=x(75)))),
        in_message(actions(button(accessibility_label=x(76)))),
        "/blocks/0/elements/0/accessibility_label",
        "must be less than 76 characters",
        id="button.accessibility_label",
    ),
    pytest.param(
        "context_actions.elements",
        in_message(context_actions(*(feedback(action_id=f"f{i}") for i in range(5)))),
        in_message(context_actions(*(feedback(action_id=f"f{i}") for i in range(6)))),
        "/blocks/0/elements",
        "no more than 5 items allowed",
        id="context_actions.elements",
    ),
    pytest.param(
        "feedback_button.text",
        in_message(context_actions(feedback({"text": plain(x(75)), "value": "v"}))),
        in_message(context_actions(feedback({"text": plain(x(76)), "value": "v"}))),
        "/blocks/0/elements/0/positive_button/text/text",
        "must be less than 76 characters",
        id="feedback_button.text",
    ),
    pytest.param(
        "feedback_button.value",
        in_message(context_actions(feedback({"text": plain("Yes"), "value": x(2000)}))),
        in_message(context_actions(feedback({"text": plain("Yes"), "value": x(2001)}))),
        "/blocks/0/elements/0/positive_button/value",
        "must be less than 2001 characters",
        id="feedback_button.value",
    ),
    pytest.param(
        "feedback_button.accessibility_label",
        in_message(
            context_actions(
                feedback({"text": plain("Yes"), "value": "v", "accessibility_label": x(75)})
            )
        ),
        in_message(
            context_actions(
                feedback({"text": plain("Yes"), "value": "v", "accessibility_label": x(76)})
            )
        ),
        "/blocks/0/elements/0/positive_button/accessibility_label",
        "must be less than 76 characters",
        id="feedback_button.accessibility_label",
    ),
    pytest.param(
        "placeholder",
        in_message(actions(select(placeholder=plain(x(150))))),
        in_message(actions(select(placeholder=plain(x(151))))),
        "/blocks/0/elements/0/placeholder/text",
        "must be less than 151 characters",
        id="placeholder",
    ),
    pytest.param(
        "static_select.options",
        in_message(actions(select(options=options(100)))),
        in_message(actions(select(options=options(101)))),
        "/blocks/0/elements/0/options",
        "no more than 100 items allowed",
        id="static_select.options",
    ),
    pytest.param(
        "static_select.option_groups",
        in_message(
            actions(
                select(
                    options=None, option_groups=[{"label": plain("g"), "options": options(1)}] * 100
                )
            )
        ),
        in_message(
            actions(
                select(
                    options=None, option_groups=[{"label": plain("g"), "options": options(1)}] * 101
                )
            )
        ),
        "/blocks/0/elements/0/option_groups",
        "no more than 100 items allowed",
        id="static_select.option_groups",
    ),
    pytest.param(
        "multi_static_select.options",
        in_message(actions(select(type="multi_static_select", options=options(100)))),
        in_message(actions(select(type="multi_static_select", options=options(101)))),
        "/blocks/0/elements/0/options",
        "no more than 100 items allowed",
        id="multi_static_select.options",
    ),
    pytest.param(
        "multi_static_select.option_groups",
        in_message(
            actions(
                select(
                    type="multi_static_select",
                    options=None,
                    option_groups=[{"label": plain("g"), "options": options(1)}] * 100,
                )
            )
        ),
        in_message(
            actions(
                select(
                    type="multi_static_select",
                    options=None,
                    option_groups=[{"label": plain("g"), "options": options(1)}] * 101,
                )
            )
        ),
        "/blocks/0/elements/0/option_groups",
        "no more than 100 items allowed",
        id="multi_static_select.option_groups",
    ),
    pytest.param(
        "checkboxes.options",
        in_message(actions({"type": "checkboxes", "action_id": "c", "options": options(10)})),
        in_message(actions({"type": "checkboxes", "action_id": "c", "options": options(11)})),
        "/blocks/0/elements/0/options",
        "no more than 10 items allowed",
        id="checkboxes.options",
    ),
    pytest.param(
        "radio_buttons.options",
        in_message(actions({"type": "radio_buttons", "action_id": "r", "options": options(10)})),
        in_message(actions({"type": "radio_buttons", "action_id": "r", "options": options(11)})),
        "/blocks/0/elements/0/options",
        "no more than 10 items allowed",
        id="radio_buttons.options",
    ),
    pytest.param(
        "overflow.options",
        in_message(actions({"type": "overflow", "action_id": "o", "options": options(5)})),
        in_message(actions({"type": "overflow", "action_id": "o", "options": options(6)})),
        "/blocks/0/elements/0/options",
        "no more than 5 items allowed",
        id="overflow.options-max",
    ),
    pytest.param(
        "overflow.options",
        in_message(actions({"type": "overflow", "action_id": "o", "options": options(2)})),
        in_message(actions({"type": "overflow", "action_id": "o", "options": options(1)})),
        "/blocks/0/elements/0/options",
        "must provide at least 2 items",
        id="overflow.options-min",
    ),
    pytest.param(
        "plain_text_input.max_length",
        in_message(input_block(text_input(max_length=3000))),
        in_message(input_block(text_input(max_length=3001))),
        "/blocks/0/element/max_length",
        "must be less than 3001",
        id="plain_text_input.max_length",
    ),
    pytest.param(
        "option.text",
        in_message(actions(select(options=[option(text=x(75))]))),
        in_message(actions(select(options=[option(text=x(76))]))),
        "/blocks/0/elements/0/options/0/text/text",
        "must be less than 76 characters",
        id="option.text",
    ),
    pytest.param(
        "option.value",
        in_message(actions(select(options=[option(value=x(150))]))),
        in_message(actions(select(options=[option(value=x(151))]))),
        "/blocks/0/elements/0/options/0/value",
        "must be less than 151 characters",
        id="option.value",
    ),
    pytest.param(
        "option.description",
        in_message(actions(select(options=[option(description=plain(x(75)))]))),
        in_message(actions(select(options=[option(description=plain(x(76)))]))),
        "/blocks/0/elements/0/options/0/description/text",
        "must be less than 76 characters",
        id="option.description",
    ),
    pytest.param(
        "option.url",
        in_message(
            actions(
                {
                    "type": "overflow",
                    "action_id": "o",
                    "options": [option("a", url=x(3000)), option("b")],
                }
            )
        ),
        in_message(
            actions(
                {
                    "type": "overflow",
                    "action_id": "o",
                    "options": [option("a", url=x(3001)), option("b")],
                }
            )
        ),
        "/blocks/0/elements/0/options/0/url",
        "must be less than 3001 characters",
        id="option.url",
    ),
    pytest.param(
        "option_group.label",
        in_message(
            actions(
                select(options=None, option_groups=[{"label": plain(x(75)), "options": options(1)}])
            )
        ),
        in_message(
            actions(
                select(options=None, option_groups=[{"label": plain(x(76)), "options": options(1)}])
            )
        ),
        "/blocks/0/elements/0/option_groups/0/label/text",
        "must be less than 76 characters",
        id="option_group.label",
    ),
    pytest.param(
        "option_group.options",
        in_message(
            actions(
                select(options=None, option_groups=[{"label": plain("g"), "options": options(100)}])
            )
        ),
        in_message(
            actions(
                select(options=None, option_groups=[{"label": plain("g"), "options": options(101)}])
            )
        ),
        "/blocks/0/elements/0/option_groups/0/options",
        "no more than 100 items allowed",
        id="option_group.options",
    ),
    *(
        pytest.param(
            f"confirm.{name}",
            in_message(actions(button(confirm=confirm(**{name: plain(x(limit))})))),
            in_message(actions(button(confirm=confirm(**{name: plain(x(limit + 1))})))),
            f"/blocks/0/elements/0/confirm/{name}/text",
            f"must be less than {limit + 1} characters",
            id=f"confirm.{name}",
        )
        for name, limit in (("title", 100), ("text", 300), ("confirm", 30), ("deny", 30))
    ),
    *(
        pytest.param(
            f"view.{name}",
            in_view({**modal(), name: plain(x(24))}),
            in_view({**modal(), name: plain(x(25))}),
            f"/view/{name}/text",
            "must be less than 25 characters",
            id=f"view.{name}",
        )
        for name in ("title", "submit", "close")
    ),
    *(
        pytest.param(
            f"view.{name}",
            in_view({**modal(), name: x(limit)}),
            in_view({**modal(), name: x(limit + 1)}),
            f"/view/{name}",
            f"must be less than {limit + 1} characters",
            id=f"view.{name}",
        )
        for name, limit in (("private_metadata", 3000), ("callback_id", 255), ("external_id", 255))
    ),
    pytest.param(
        "block.type",
        in_message({"type": "divider"}),
        in_message({"type": "carousel_of_doom"}),
        "/blocks/0/type",
        "unsupported type: carousel_of_doom",
        id="block.type",
    ),
    pytest.param(
        "element.type",
        in_message(actions(button())),
        in_message(actions(text_input())),
        "/blocks/0/elements/0/type",
        "unsupported type: plain_text_input",
        id="element.type",
    ),
    pytest.param(
        "view.type",
        in_view(modal()),
        in_view({"type": "dialog", "blocks": []}),
        "/view/type",
        "unsupported type: dialog",
        id="view.type",
    ),
    pytest.param(
        "required_field",
        in_message({"type": "header", "text": plain("Header")}),
        in_message({"type": "header"}),
        "/blocks/0",
        "missing required field: text",
        id="required_field",
    ),
    pytest.param(
        "text.type",
        in_message({"type": "header", "text": plain("Header")}),
        in_message({"type": "header", "text": mrkdwn("*Header*")}),
        "/blocks/0/text",
        "failed to match all allowed schemas",
        id="text.type",
    ),
    pytest.param(
        "shape",
        lambda: check_blocks([section()], surface="message"),
        lambda: check_blocks({"type": "section"}, surface="message"),
        "/blocks",
        "must be an array",
        id="shape",
    ),
    pytest.param(
        "block_id.unique",
        in_message(section(block_id="a"), section(block_id="b")),
        in_message(section(block_id="same"), section(block_id="same")),
        "/blocks/1/block_id",
        '`block_id` "same" already exists',
        id="block_id.unique",
    ),
    pytest.param(
        "action_id.unique",
        in_message(actions(button("go"), block_id="a"), actions(button("go"), block_id="b")),
        in_message(actions(button("go"), button("go"))),
        "/blocks/0/elements/1/action_id",
        '`action_id` "go" already exists',
        id="action_id.unique",
    ),
    pytest.param(
        "modal.submit_required",
        in_view(modal([input_block()])),
        in_view(modal([input_block()], submit=None)),
        "/view/blocks/0",
        "must define `submit` to use an `input` block in modals",
        id="modal.submit_required",
    ),
]


@pytest.mark.parametrize(("rule", "valid", "invalid", "pointer", "message"), CASES)
def test_each_rule_accepts_the_limit_and_refuses_one_past_it_as_slack_words_it(
    rule: str,
    valid: Callable[[], list[Issue]],
    invalid: Callable[[], list[Issue]],
    pointer: str,
    message: str,
) -> None:
    assert valid() == []
    assert invalid() == [Issue(rule, pointer, message)]


def test_every_rule_the_checker_knows_has_a_case_above() -> None:
    covered = {str(case.values[0]) for case in CASES}
    assert covered == set(rules())


def test_an_issue_reads_like_slacks_response_metadata_message() -> None:
    (issue,) = check_blocks([section(x(3001))], surface="message")
    assert (
        issue.slack_message
        == "[ERROR] must be less than 3001 characters [json-pointer:/blocks/0/text/text]"
    )


def test_input_blocks_are_allowed_in_messages() -> None:
    assert check_blocks([input_block(), actions(button())], surface="message") == []


def test_home_views_need_no_title_or_submit() -> None:
    assert check_view(home([input_block()])) == []


def test_every_limit_cites_a_slack_reference_page() -> None:
    assert all(
        limit.doc.startswith("https://docs.slack.dev/reference/") for limit in LIMITS.values()
    )


def test_slack_sdk_models_agree_with_the_table_where_they_overlap() -> None:
    assert SectionBlock.text_max_length == LIMITS["section.text"].max
    assert SectionBlock.fields_max_length == LIMITS["section.fields"].max
    assert HeaderBlock.text_max_length == LIMITS["header.text"].max
    assert ActionsBlock.elements_max_length == LIMITS["actions.elements"].max
    assert ContextBlock.elements_max_length == LIMITS["context.elements"].max
    assert InputBlock.label_max_length == LIMITS["input.label"].max
    assert Block.block_id_max_length == LIMITS["block_id"].max


def test_slack_sdk_models_miss_the_caps_this_table_adds() -> None:
    """Why the table exists: slack_sdk validates 11 checkboxes, duplicate block_ids and 51
    blocks without complaint."""
    eleven = actions({"type": "checkboxes", "action_id": "c", "options": options(11)})
    parsed = Block.parse(eleven)
    assert parsed is not None
    parsed.validate_json()
    assert [i.rule for i in check_blocks([eleven], surface="message")] == ["checkboxes.options"]


def test_slacks_documented_context_actions_example_passes() -> None:
    assert check_blocks([context_actions(feedback())], surface="message") == []


def test_a_feedback_button_without_a_value_is_refused() -> None:
    broken = feedback({"text": plain("👍")})
    assert check_blocks([context_actions(broken)], surface="message") == [
        Issue(
            "required_field",
            "/blocks/0/elements/0/positive_button",
            "missing required field: value",
        )
    ]


def test_a_plain_button_is_not_allowed_in_context_actions() -> None:
    assert check_blocks([context_actions(button())], surface="message") == [
        Issue("element.type", "/blocks/0/elements/0/type", "unsupported type: button")
    ]


def test_slack_sdk_models_agree_on_the_feedback_limits() -> None:
    assert ContextActionsBlock.elements_max_length == LIMITS["context_actions.elements"].max
    assert FeedbackButtonObject.text_max_length == LIMITS["feedback_button.text"].max
    assert FeedbackButtonObject.value_max_length == LIMITS["feedback_button.value"].max
