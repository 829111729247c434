"""Block Kit → HTML: every block and element kind drawn as Slack draws it, the person's draft
filled in, and agent text always inert."""

from __future__ import annotations

from typing import Any

import pytest

from slack_emulator.playground import Names, render_blocks

from .html_tree import elements, find, text

NAMES = Names(
    user=lambda uid: {"U0ALICE001": "alice"}.get(uid),
    channel=lambda cid: {"C0QUESTION": "agent-questions"}.get(cid),
    group=lambda gid: {"S0REVIEWER": "reviewers"}.get(gid),
)


def plain(value: str) -> dict[str, Any]:
    return {"type": "plain_text", "text": value}


def mrkdwn(value: str) -> dict[str, Any]:
    return {"type": "mrkdwn", "text": value}


def option(label: str, value: str, description: str | None = None) -> dict[str, Any]:
    found: dict[str, Any] = {"text": plain(label), "value": value}
    if description is not None:
        found["description"] = plain(description)
    return found


def draw(*blocks: dict[str, Any], state: Any = None, errors: Any = None) -> str:
    return render_blocks(list(blocks), NAMES, state=state, errors=errors)


# blocks -------------------------------------------------------------------------------------


def test_a_header_is_a_heading_line_of_plain_text() -> None:
    markup = draw({"type": "header", "block_id": "h", "text": plain("📋 Plan review")})
    assert [e.text for e in find(markup, "div", class_="bk bk-header")] == ["📋 Plan review"]


def test_a_section_shows_mrkdwn_as_bold_italic_strike_code_and_mentions() -> None:
    markup = draw(
        {
            "type": "section",
            "block_id": "s",
            "text": mrkdwn(
                "*Storage* _soon_ ~old~ `db` <@U0ALICE001> <#C0QUESTION> <!subteam^S0REVIEWER>"
            ),
        }
    )
    assert [e.text for e in find(markup, "b")] == ["Storage"]
    assert [e.text for e in find(markup, "i")] == ["soon"]
    assert [e.text for e in find(markup, "s")] == ["old"]
    assert [e.text for e in find(markup, "code", class_="sk-code")] == ["db"]
    assert [e.text for e in find(markup, "span", class_="sk-mention")] == [
        "@alice",
        "#agent-questions",
        "@reviewers",
    ]


def test_a_section_shows_its_fields_and_its_accessory_beside_the_text() -> None:
    markup = draw(
        {
            "type": "section",
            "block_id": "s",
            "text": mrkdwn("Pick one"),
            "fields": [mrkdwn("*Owner*\nPayments"), plain("Region")],
            "accessory": {
                "type": "button",
                "action_id": "more",
                "text": plain("More"),
            },
        }
    )
    assert [e.text for e in find(markup, "div", class_="bk-field")] == ["OwnerPayments", "Region"]
    (accessory,) = find(markup, "div", class_="bk-accessory")
    assert [(c.tag, c.attrs["data-block"], c.attrs["data-action"]) for c in accessory.children] == [
        ("button", "s", "more")
    ]


def test_a_context_is_a_small_line_of_texts() -> None:
    markup = draw(
        {
            "type": "context",
            "block_id": "c",
            "elements": [mrkdwn("Needs *1* approval"), plain("v2")],
        }
    )
    (context,) = find(markup, "div", class_="bk bk-context")
    assert context.text == "Needs 1 approvalv2"


def test_a_divider_is_a_rule() -> None:
    assert len(find(draw({"type": "divider", "block_id": "d"}), "hr", class_="bk bk-divider")) == 1


def test_buttons_in_actions_carry_their_ids_style_and_confirm_dialog() -> None:
    markup = draw(
        {
            "type": "actions",
            "block_id": "plan",
            "elements": [
                {
                    "type": "button",
                    "action_id": "sq_approve",
                    "style": "primary",
                    "text": plain("Approve"),
                    "confirm": {
                        "title": plain("Approve this plan?"),
                        "text": mrkdwn("The agent will go ahead."),
                        "confirm": plain("Approve"),
                        "deny": plain("Not yet"),
                    },
                },
                {
                    "type": "button",
                    "action_id": "sq_pick.0",
                    "style": "danger",
                    "text": plain("Revise"),
                },
            ],
        }
    )
    buttons = find(markup, "button", data_el="button")
    assert [(b.text, b.attrs["class"], b.attrs["data-action"]) for b in buttons] == [
        ("Approve", "sk-btn sk-btn-primary", "sq_approve"),
        ("Revise", "sk-btn sk-btn-danger", "sq_pick.0"),
    ]
    assert "data-confirm" in buttons[0].attrs
    (dialog,) = find(markup, "dialog", class_="sk-confirm")
    assert [e.text for e in dialog.children] == [
        "Approve this plan?",
        "The agent will go ahead.",
        "Not yetApprove",
    ]


def test_an_overflow_menu_lists_its_options_by_value() -> None:
    markup = draw(
        {
            "type": "actions",
            "block_id": "a",
            "elements": [
                {
                    "type": "overflow",
                    "action_id": "o",
                    "options": [option("Edit", "e"), option("Delete", "d")],
                }
            ],
        }
    )
    (menu,) = find(markup, "details", data_el="overflow")
    assert (menu.attrs["data-block"], menu.attrs["data-action"]) == ("a", "o")
    assert [
        (b.text, b.attrs["data-value"]) for b in find(markup, "button", class_="sk-menu-item")
    ] == [
        ("Edit", "e"),
        ("Delete", "d"),
    ]


def test_radio_buttons_show_descriptions_and_the_persons_choice() -> None:
    markup = draw(
        {
            "type": "input",
            "block_id": "owner",
            "label": plain("Which team owns it?"),
            "element": {
                "type": "radio_buttons",
                "action_id": "sq_input",
                "options": [option("Payments", "0", "money"), option("Platform", "1")],
            },
        },
        state={"owner": {"sq_input": {"type": "radio_buttons", "selected_option": {"value": "1"}}}},
    )
    radios = find(markup, "input", type="radio")
    assert [(r.attrs["value"], "checked" in r.attrs) for r in radios] == [("0", False), ("1", True)]
    assert [e.text for e in find(markup, "label", class_="sk-choice")] == [
        "Paymentsmoney",
        "Platform",
    ]
    assert [e.text for e in find(markup, "label", class_="bk-label")] == ["Which team owns it? "]


def test_checkboxes_show_every_option_ticked_as_drafted() -> None:
    markup = draw(
        {
            "type": "actions",
            "block_id": "regions",
            "elements": [
                {
                    "type": "checkboxes",
                    "action_id": "pick",
                    "options": [
                        option("eu-west-1", "0"),
                        option("us-east-1", "1"),
                        option("ap", "2"),
                    ],
                }
            ],
        },
        state={
            "regions": {
                "pick": {
                    "type": "checkboxes",
                    "selected_options": [{"value": "0"}, {"value": "2"}],
                }
            }
        },
    )
    boxes = find(markup, "input", type="checkbox")
    assert [(b.attrs["value"], "checked" in b.attrs) for b in boxes] == [
        ("0", True),
        ("1", False),
        ("2", True),
    ]


def test_a_static_select_shows_its_placeholder_until_something_is_picked() -> None:
    select = {
        "type": "section",
        "block_id": "db",
        "text": mrkdwn("Which database?"),
        "accessory": {
            "type": "static_select",
            "action_id": "pick",
            "placeholder": plain("Choose"),
            "options": [option("Postgres", "0"), option("SQLite", "1")],
        },
    }
    fresh = find(draw(select), "option")
    assert [(o.text, "selected" in o.attrs) for o in fresh] == [
        ("Choose", True),
        ("Postgres", False),
        ("SQLite", False),
    ]
    picked = draw(
        select,
        state={"db": {"pick": {"type": "static_select", "selected_option": {"value": "1"}}}},
    )
    assert [o.text for o in find(picked, "option") if "selected" in o.attrs] == ["SQLite"]


def test_a_multi_static_select_shows_the_picked_options_as_tokens() -> None:
    markup = draw(
        {
            "type": "input",
            "block_id": "regions",
            "label": plain("Regions"),
            "element": {
                "type": "multi_static_select",
                "action_id": "pick",
                "options": [option("eu", "0"), option("us", "1"), option("ap", "2")],
            },
        },
        state={
            "regions": {
                "pick": {"type": "multi_static_select", "selected_options": [{"value": "1"}]}
            }
        },
    )
    assert [t.text for t in find(markup, "span", class_="sk-token")] == ["us"]
    boxes = find(markup, "input", type="checkbox")
    assert [(b.attrs["value"], "checked" in b.attrs) for b in boxes] == [
        ("0", False),
        ("1", True),
        ("2", False),
    ]


def test_an_input_block_shows_a_plain_text_input_with_draft_error_and_optional_mark() -> None:
    markup = draw(
        {
            "type": "input",
            "block_id": "name",
            "optional": True,
            "label": plain("What should it be called?"),
            "hint": plain("Short"),
            "element": {
                "type": "plain_text_input",
                "action_id": "sq_input",
                "multiline": True,
                "max_length": 3000,
                "placeholder": plain("Type your answer"),
            },
        },
        state={"name": {"sq_input": {"type": "plain_text_input", "value": "billing"}}},
        errors={"name": "Too short"},
    )
    (area,) = find(markup, "textarea", data_el="plain_text_input")
    assert (area.text, area.attrs["placeholder"], area.attrs["maxlength"]) == (
        "billing",
        "Type your answer",
        "3000",
    )
    assert [e.text for e in find(markup, "div", class_="bk-error")] == ["Too short"]
    assert [e.text for e in find(markup, "span", class_="bk-optional")] == ["(optional)"]
    assert [e.text for e in find(markup, "div", class_="bk-hint")] == ["Short"]


def test_a_single_line_input_is_an_input_element_with_its_value() -> None:
    markup = draw(
        {
            "type": "input",
            "block_id": "other",
            "label": plain("Other answer"),
            "element": {"type": "plain_text_input", "action_id": "sq_input"},
        },
        state={"other": {"sq_input": {"type": "plain_text_input", "value": 'say "hi"'}}},
    )
    (field,) = find(markup, "input", data_el="plain_text_input")
    assert field.attrs["value"] == 'say "hi"'


def test_a_markdown_block_shows_headings_lists_and_code() -> None:
    markup = draw(
        {
            "type": "markdown",
            "block_id": "p",
            "text": "## Plan\n\n1. Add a `Store`\n2. **Ship** it\n\n```python\nx = 1 < 2\n```\n\n- a\n- b\n",
        }
    )
    assert [e.text for e in find(markup, "h2")] == ["Plan"]
    assert [e.text for e in find(markup, "ol", class_="md-list")] == ["Add a StoreShip it"]
    assert [e.text for e in find(markup, "strong")] == ["Ship"]
    assert [e.text for e in find(markup, "pre", class_="md-pre")] == ["x = 1 < 2"]
    assert [e.text for e in find(markup, "ul", class_="md-list")] == ["ab"]


def test_a_markdown_table_is_a_table_with_its_header_cells_and_alignment() -> None:
    markup = draw(
        {
            "type": "markdown",
            "block_id": "p",
            "text": "Steps:\n| Step | Risk | Owner |\n|:--|:-:|--:|\n"
            "| Add a `Store` | **low** | a \\| b |\n| Switch | high |\n\nThen ship.",
        }
    )
    (table,) = find(markup, "table", class_="md-table")
    assert [e.text for e in table.descendants() if e.tag == "th"] == ["Step", "Risk", "Owner"]
    rows = [[c.text for c in row.children] for row in table.descendants() if row.tag == "tr"]
    # A short row is padded to the header's columns; `\|` is a pipe inside a cell.
    assert rows[1:] == [["Add a Store", "low", "a | b"], ["Switch", "high", ""]]
    aligns = [c.attrs["style"] for c in table.descendants() if c.tag == "th"]
    assert aligns == ["text-align:left", "text-align:center", "text-align:right"]
    assert [e.text for e in find(markup, "p", class_="md-p")] == ["Steps:", "Then ship."]


def test_pipes_without_a_rule_line_under_them_stay_a_paragraph() -> None:
    markup = draw({"type": "markdown", "block_id": "p", "text": "a | b\nc | d"})
    assert find(markup, "table") == []
    assert [e.text for e in find(markup, "p", class_="md-p")] == ["a | b c | d"]


def test_a_date_token_carries_its_time_and_format_for_the_readers_zone() -> None:
    markup = draw(
        {
            "type": "context",
            "block_id": "c",
            "elements": [
                mrkdwn(
                    "Answered · <!date^1700000000^{date_short_pretty} at {time}|2023-11-14 22:13 UTC>"
                )
            ],
        }
    )
    (stamp,) = find(markup, "time", class_="sk-date")
    assert stamp.text == "2023-11-14 22:13 UTC"  # until the page's script shows it locally
    assert stamp.attrs == {
        "class": "sk-date",
        "datetime": "2023-11-14T22:13:20+00:00",
        "data-ts": "1700000000",
        "data-format": "{date_short_pretty} at {time}",
    }


@pytest.mark.parametrize(
    "token", ["<!date^soon^{time}|later>", "<!date^99999999999999^{time}|later>"]
)
def test_a_date_token_the_page_cannot_read_shows_its_fallback(token: str) -> None:
    markup = draw({"type": "section", "block_id": "s", "text": mrkdwn(token)})
    assert find(markup, "time") == []
    assert text(markup) == "later"


def test_a_button_label_is_held_whole_in_its_title() -> None:
    label = 'Keep the "current" cluster & add a replica for reporting'
    markup = draw(
        {
            "type": "actions",
            "block_id": "a",
            "elements": [{"type": "button", "action_id": "b", "text": plain(label)}],
        }
    )
    (button,) = find(markup, "button", data_el="button")
    assert button.attrs["title"] == label
    assert [e.text for e in find(markup, "span", class_="sk-btn-label")] == [label]


def test_the_plan_review_reads_as_header_question_plan_progress_and_decision_buttons() -> None:
    markup = draw(
        {"type": "header", "block_id": "sq~ph.0", "text": plain("📋 Plan review")},
        {"type": "section", "block_id": "sq~pq.0", "text": mrkdwn("*An agent* asks: May I?")},
        {"type": "markdown", "block_id": "md", "text": "## Plan: move sessions\n\n1. Add it"},
        {"type": "context", "block_id": "sq~ps.0", "elements": [mrkdwn("Needs 1 approval")]},
        {
            "type": "actions",
            "block_id": "plan",
            "elements": [
                {
                    "type": "button",
                    "action_id": "sq_approve",
                    "style": "primary",
                    "text": plain("Approve"),
                },
                {"type": "button", "action_id": "sq_changes", "text": plain("Request changes")},
                {"type": "button", "action_id": "sq_discuss", "text": plain("Discuss in thread")},
            ],
        },
    )
    assert text(markup) == (
        "📋 Plan reviewAn agent asks: May I?Plan: move sessionsAdd itNeeds 1 approval"
        "ApproveRequest changesDiscuss in thread"
    )


@pytest.mark.parametrize("kind", ["video", "entry", "_header", "<b>"])
def test_an_unknown_block_is_named_not_dropped(kind: str) -> None:
    assert text(draw({"type": kind, "block_id": "v"})) == f"[{kind} block]"


# hostile agent text -------------------------------------------------------------------------

HOSTILE = [
    "<script>alert(1)</script>",
    '"><img src=x onerror=alert(1)>',
    "&lt;script&gt;alert(1)&lt;/script&gt;",
    "<javascript:alert(1)|click me>",
    "\U000f0000",
]


def no_injection(markup: str) -> None:
    tags = {e.tag for e in elements(markup)}
    assert not tags & {"script", "img", "iframe", "object", "embed", "svg"}
    handlers = [
        (e.tag, name) for e in elements(markup) for name in e.attrs if name.startswith("on")
    ]
    assert handlers == []
    assert not any(
        (value or "").lower().startswith("javascript:")
        for e in elements(markup)
        for value in e.attrs.values()
    )


@pytest.mark.parametrize("hostile", HOSTILE)
def test_hostile_text_in_every_text_slot_stays_text(hostile: str) -> None:
    markup = draw(
        {"type": "header", "block_id": hostile, "text": plain(hostile)},
        {
            "type": "section",
            "block_id": "s",
            "text": mrkdwn(hostile),
            "fields": [mrkdwn(hostile)],
            "accessory": {
                "type": "button",
                "action_id": hostile,
                "text": plain(hostile),
                "value": hostile,
            },
        },
        {"type": "context", "block_id": "c", "elements": [mrkdwn(hostile), plain(hostile)]},
        {
            "type": "markdown",
            "block_id": "m",
            "text": f"# {hostile}\n\n- {hostile}\n\n[{hostile}](javascript:alert(1))",
        },
        {
            "type": "input",
            "block_id": "i",
            "label": plain(hostile),
            "element": {
                "type": "static_select",
                "action_id": "a",
                "placeholder": plain(hostile),
                "options": [option(hostile, hostile, hostile)],
            },
        },
        {
            "type": "input",
            "block_id": "t",
            "label": plain("x"),
            "element": {
                "type": "plain_text_input",
                "action_id": "a",
                "placeholder": plain(hostile),
            },
        },
        state={"t": {"a": {"type": "plain_text_input", "value": hostile}}},
        errors={"t": hostile},
    )
    no_injection(markup)


def test_escaped_agent_text_reads_exactly_as_the_agent_wrote_it() -> None:
    # The bot escapes agent text for mrkdwn; the page shows the characters, not markup.
    markup = draw(
        {
            "type": "section",
            "block_id": "s",
            "text": mrkdwn("&lt;script&gt;alert(1)&lt;/script&gt; &amp;lt;"),
        }
    )
    assert text(markup) == "<script>alert(1)</script> &lt;"
    no_injection(markup)


def test_a_broadcast_is_shown_as_slack_shows_it_and_is_only_a_highlighted_word() -> None:
    markup = draw(
        {"type": "section", "block_id": "s", "text": mrkdwn("hey <!channel> and <!here>")}
    )
    assert [e.text for e in find(markup, "span", class_="sk-mention sk-broadcast")] == [
        "@channel",
        "@here",
    ]
    assert text(markup) == "hey @channel and @here"


def test_only_web_and_mail_links_become_links() -> None:
    markup = draw(
        {
            "type": "section",
            "block_id": "s",
            "text": mrkdwn(
                "<https://example.com/a?b=1&amp;c=2|docs> <javascript:alert(1)|x> <mailto:a@b.c>"
            ),
        }
    )
    assert [(a.attrs["href"], a.text) for a in find(markup, "a")] == [
        ("https://example.com/a?b=1&c=2", "docs"),
        ("mailto:a@b.c", "mailto:a@b.c"),
    ]
    assert text(markup) == "docs x mailto:a@b.c"


def test_a_slack_permalink_can_be_sent_into_the_page() -> None:
    names = Names(local_link=lambda url: "/?c=C1&t=1.2" if "/archives/" in url else None)
    markup = render_blocks(
        [
            {
                "type": "section",
                "block_id": "s",
                "text": mrkdwn("<https://x.slack.com/archives/C1/p1000000002000000|View in Slack>"),
            }
        ],
        names,
    )
    assert [(a.attrs["href"], a.attrs.get("target")) for a in find(markup, "a")] == [
        ("/?c=C1&t=1.2", None)
    ]


def test_a_malformed_block_is_reported_in_its_place_and_the_rest_is_drawn() -> None:
    markup = draw(
        {"type": "section", "block_id": "s", "text": "not a text object"},
        {"type": "divider", "block_id": "d"},
    )
    assert text(markup) == (
        "[section block not shown: AttributeError: 'str' object has no attribute 'get']"
    )
    assert len(find(markup, "hr")) == 1
