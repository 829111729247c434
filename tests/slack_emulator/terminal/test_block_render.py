"""block_render: Block Kit as a terminal shows it — golden text for hand-written blocks shaped
like Slack's, and the numbered controls a prompt acts on."""

from __future__ import annotations

from typing import Any

from slack_emulator import View
from slack_emulator.terminal.block_render import render_blocks, render_message, render_view
from slack_emulator.terminal.controls import Choice, Control
from slack_emulator.terminal.markup import Names, Style

Json = dict[str, Any]
BACK_SEND = (
    "\N{SINGLE LEFT-POINTING ANGLE QUOTATION MARK}Back\N{SINGLE RIGHT-POINTING ANGLE QUOTATION MARK}  "
    "\N{SINGLE LEFT-POINTING ANGLE QUOTATION MARK}Send\N{SINGLE RIGHT-POINTING ANGLE QUOTATION MARK}"
)
"""A modal's close and submit labels, as the terminal shows them."""

NAMES = Names(
    user={"U0ALICE001": "alice"}.get,
    channel={"C0QUESTION": "agent-questions"}.get,
    group={"S0REVIEWER": "reviewers"}.get,
)
PLAIN = Style(width=60, color=False, names=NAMES)
COLOR = Style(width=60, color=True, names=NAMES)


def plain(text: str) -> Json:
    """A plain_text object as Slack stores it."""
    return {"type": "plain_text", "text": text, "emoji": True}


def option(label: str, value: str, description: str | None = None) -> Json:
    found: Json = {"text": plain(label), "value": value}
    if description is not None:
        found["description"] = plain(description)
    return found


QUESTION: list[Json] = [
    {"type": "header", "block_id": "h", "text": plain("Storage :robot_face:")},
    {
        "type": "section",
        "block_id": "intro",
        "text": {
            "type": "mrkdwn",
            "verbatim": False,
            "text": "*Which database* should `billing` use? Asked by <@U0ALICE001> for "
            "<!subteam^S0REVIEWER> in <#C0QUESTION>; see <https://example.com/adr/7|ADR 7> "
            "&amp; keep my_var_name &lt;as is&gt;.",
        },
        "accessory": {
            "type": "button",
            "action_id": "details",
            "text": plain("View all"),
            "value": "d",
        },
    },
    {
        "type": "actions",
        "block_id": "database",
        "elements": [
            {
                "type": "button",
                "action_id": "pick.0",
                "text": plain("Postgres"),
                "value": "0",
                "style": "primary",
            },
            {"type": "button", "action_id": "pick.1", "text": plain("SQLite"), "value": "1"},
            {"type": "button", "action_id": "other", "text": plain("Other…"), "value": "o"},
        ],
    },
    {
        "type": "context",
        "block_id": "when",
        "elements": [
            {
                "type": "mrkdwn",
                "verbatim": False,
                "text": ":white_check_mark: Answered by <@U0ALICE001> · "
                "<!date^1700000000^{date_short_pretty} at {time}|2023-11-14 22:13 UTC>",
            }
        ],
    },
    {"type": "divider", "block_id": "d"},
]

FORM: list[Json] = [
    {
        "type": "input",
        "block_id": "owner",
        "optional": True,
        "label": plain("Which team owns it?"),
        "element": {
            "type": "radio_buttons",
            "action_id": "input",
            "initial_option": option("Platform", "1"),
            "options": [option("Payments", "0", "the payments squad"), option("Platform", "1")],
        },
    },
    {
        "type": "input",
        "block_id": "regions",
        "label": plain("Which regions first?"),
        "hint": plain("Pick at least one."),
        "element": {
            "type": "checkboxes",
            "action_id": "input",
            "options": [
                option("eu-west-1", "0"),
                option(
                    "us-east-1",
                    "1",
                    "Virginia, where most customers are today and where the primary database lives",
                ),
                option("ap-south-1", "2"),
            ],
        },
    },
    {
        "type": "input",
        "block_id": "tier",
        "label": plain("Tier"),
        "element": {
            "type": "static_select",
            "action_id": "input",
            "placeholder": plain("Choose a tier"),
            "options": [option("Gold", "g"), option("Silver", "s")],
        },
    },
    {
        "type": "input",
        "block_id": "teams",
        "optional": True,
        "label": plain("Reviewers"),
        "element": {
            "type": "multi_static_select",
            "action_id": "input",
            "placeholder": plain("Choose teams"),
            "option_groups": [
                {"label": plain("Product"), "options": [option("Billing", "b")]},
                {"label": plain("Infra"), "options": [option("SRE", "s"), option("DBA", "d")]},
            ],
        },
    },
    {
        "type": "input",
        "block_id": "name",
        "label": plain("What should it be called?"),
        "element": {
            "type": "plain_text_input",
            "action_id": "input",
            "multiline": True,
            "placeholder": plain("Type your answer"),
        },
    },
    {
        "type": "actions",
        "block_id": "send",
        "elements": [
            {
                "type": "button",
                "action_id": "submit",
                "text": plain("Submit"),
                "style": "primary",
                "value": "s",
            },
            {
                "type": "button",
                "action_id": "form",
                "text": plain("Answer in a form"),
                "value": "f",
            },
        ],
    },
]


def test_a_question_reads_as_slack_shows_it_with_numbered_buttons() -> None:
    assert render_blocks(QUESTION, PLAIN).text == (
        "Storage 🤖\n"
        "Which database should `billing` use? Asked by @alice for\n"
        "@reviewers in #agent-questions; see ADR 7\n"
        "(https://example.com/adr/7) & keep my_var_name <as is>.\n"
        "[1] View all\n"
        "[2] Postgres  [3] SQLite  [4] Other…\n"
        "✅ Answered by @alice · 2023-11-14 22:13 UTC\n" + "─" * 60
    )


def test_each_button_is_numbered_in_block_order_with_its_ids() -> None:
    controls = render_blocks(QUESTION, PLAIN).controls
    assert [(c.number, c.kind, c.block_id, c.action_id, c.label) for c in controls] == [
        (1, "button", "intro", "details", "View all"),
        (2, "button", "database", "pick.0", "Postgres"),
        (3, "button", "database", "pick.1", "SQLite"),
        (4, "button", "database", "other", "Other…"),
    ]
    assert controls[1].style == "primary"
    assert all(c.dispatches and not c.in_input for c in controls)


def test_a_form_lists_each_input_with_its_numbered_options() -> None:
    assert render_blocks(FORM, PLAIN).text == (
        "Which team owns it? (optional)\n"
        "[1] choose one:\n"
        "    1) ( ) Payments — the payments squad\n"
        "    2) (•) Platform\n"
        "\n"
        "Which regions first?\n"
        "[2] choose any:\n"
        "    1) [ ] eu-west-1\n"
        "    2) [ ] us-east-1 — Virginia, where most customers are\n"
        "           today and where the primary database lives\n"
        "    3) [ ] ap-south-1\n"
        "Pick at least one.\n"
        "\n"
        "Tier\n"
        "[3] ▾ Choose a tier\n"
        "    1) ( ) Gold\n"
        "    2) ( ) Silver\n"
        "\n"
        "Reviewers (optional)\n"
        "[4] ▾ Choose teams\n"
        "    Product:\n"
        "    1) [ ] Billing\n"
        "    Infra:\n"
        "    2) [ ] SRE\n"
        "    3) [ ] DBA\n"
        "\n"
        "What should it be called?\n"
        "[5] ✎ (Type your answer)\n"
        "\n"
        "[6] Submit  [7] Answer in a form"
    )


def test_a_forms_inputs_come_in_order_with_their_options_and_requiredness() -> None:
    rendered = render_blocks(FORM, PLAIN)
    assert rendered.inputs == [
        Control(
            number=1,
            kind="one",
            type="radio_buttons",
            block_id="owner",
            action_id="input",
            label="Which team owns it?",
            options=(Choice(1, "0", "Payments"), Choice(2, "1", "Platform")),
            in_input=True,
            optional=True,
            dispatches=False,
        ),
        Control(
            number=2,
            kind="many",
            type="checkboxes",
            block_id="regions",
            action_id="input",
            label="Which regions first?",
            options=(
                Choice(1, "0", "eu-west-1"),
                Choice(2, "1", "us-east-1"),
                Choice(3, "2", "ap-south-1"),
            ),
            in_input=True,
            optional=False,
            dispatches=False,
        ),
        Control(
            number=3,
            kind="one",
            type="static_select",
            block_id="tier",
            action_id="input",
            label="Tier",
            options=(Choice(1, "g", "Gold"), Choice(2, "s", "Silver")),
            in_input=True,
            optional=False,
            dispatches=False,
        ),
        Control(
            number=4,
            kind="many",
            type="multi_static_select",
            block_id="teams",
            action_id="input",
            label="Reviewers",
            options=(Choice(1, "b", "Billing"), Choice(2, "s", "SRE"), Choice(3, "d", "DBA")),
            in_input=True,
            optional=True,
            dispatches=False,
        ),
        Control(
            number=5,
            kind="text",
            type="plain_text_input",
            block_id="name",
            action_id="input",
            label="What should it be called?",
            in_input=True,
            optional=False,
            dispatches=False,
        ),
    ]
    assert [(b.number, b.label) for b in rendered.buttons] == [
        (6, "Submit"),
        (7, "Answer in a form"),
    ]


def test_a_modal_shows_title_input_state_errors_and_its_close_and_submit_labels() -> None:
    view = View(
        id="V1",
        user_id="U0ALICE001",
        type="modal",
        team_id="T1",
        app_id="A1",
        bot_id="B1",
        hash="h",
        blocks=[
            {
                "type": "input",
                "block_id": "other",
                "label": plain("Your answer"),
                "element": {"type": "plain_text_input", "action_id": "input"},
            }
        ],
        title_object=plain("Your own answer"),
        submit_object=plain("Send"),
        close_object=plain("Back"),
        state={"other": {"input": {"type": "plain_text_input", "value": "MySQL"}}},
        errors={"other": "Say which version"},
    )
    rendered = render_view(view, PLAIN)
    assert rendered.text == (
        "┌─ Your own answer " + "─" * 41 + "\n"
        "│ Your answer\n"
        "│ [1] ✎ “MySQL”\n"
        "│ ⚠ Say which version\n"
        f"└─ {BACK_SEND} " + "─" * 42
    )
    assert [(c.number, c.kind, c.block_id) for c in rendered.controls] == [(1, "text", "other")]


def test_rich_text_and_markdown_blocks_read_plainly() -> None:
    blocks: list[Json] = [
        {
            "type": "rich_text",
            "block_id": "r",
            "elements": [
                {
                    "type": "rich_text_section",
                    "elements": [
                        {"type": "text", "text": "Plan for "},
                        {"type": "user", "user_id": "U0ALICE001"},
                        {"type": "text", "text": ":", "style": {"bold": True}},
                    ],
                },
                {
                    "type": "rich_text_list",
                    "style": "ordered",
                    "indent": 0,
                    "elements": [
                        {
                            "type": "rich_text_section",
                            "elements": [{"type": "text", "text": "Add a store"}],
                        },
                        {
                            "type": "rich_text_section",
                            "elements": [
                                {"type": "text", "text": "Switch reads "},
                                {"type": "emoji", "name": "rocket"},
                            ],
                        },
                    ],
                },
                {
                    "type": "rich_text_quote",
                    "elements": [{"type": "text", "text": "Rollback: turn the flag off"}],
                },
                {
                    "type": "rich_text_preformatted",
                    "elements": [{"type": "text", "text": "flag = off"}],
                },
            ],
        },
        {
            "type": "markdown",
            "block_id": "m",
            "text": "## Plan\n- **Step 1**: read [the docs](https://x.io)\n```\ncode()\n```",
        },
    ]
    assert render_blocks(blocks, PLAIN).text == (
        "Plan for @alice:\n"
        "1. Add a store\n"
        "2. Switch reads 🚀\n"
        "│ Rollback: turn the flag off\n"
        "  flag = off\n"
        "Plan\n"
        "• Step 1: read the docs (https://x.io)\n"
        "  code()"
    )


def test_a_primary_button_is_green_only_with_colour() -> None:
    actions = QUESTION[2:3]
    assert render_blocks(actions, COLOR).text == (
        "\x1b[1m[1]\x1b[22m \x1b[32mPostgres\x1b[39m  \x1b[1m[2]\x1b[22m SQLite  "
        "\x1b[1m[3]\x1b[22m Other…"
    )
    assert "\x1b" not in render_blocks(QUESTION, PLAIN).text


def test_a_message_without_blocks_shows_its_text_and_attachments() -> None:
    rendered = render_message(
        "*Deploy* done", [], PLAIN, attachments=[{"fallback": "build 42 passed"}]
    )
    assert rendered.text == "Deploy done\n▌ build 42 passed"
    assert rendered.controls == ()
