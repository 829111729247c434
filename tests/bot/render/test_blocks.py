"""Block Kit rendering: messages, modals and settled messages stay within Slack's limits,
carry question ids as block ids, and never show agent text unescaped in mrkdwn."""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from slack_sdk.models.views import View

from bot.block_ids import ViewMeta
from bot.outcomes import Verdict
from bot.render import (
    AskLayout,
    MessageContent,
    Settlement,
    ask_message,
    details_modal,
    form_modal,
    lay_out,
    other_modal,
    settled_message,
    thread_root,
)
from bot.render.text import escape
from provider import AskUserQuestionAnswerItem, AskUserQuestionItem, AskUserQuestionRequest

JSON = dict[str, Any]
Question = dict[str, Any]

ASK = "a1b2c3d4e5f60718"  # the shape of new_ask_id(): 8 random bytes in hex
CHANNEL = "C0QUESTIONS"
AT = 1_700_000_000.0
STAMP = "<!date^1700000000^{date_short_pretty} at {time}|2023-11-14 22:13 UTC>"
ALICE = "U0ALICE001"
BOB = "U0BOB00002"
HOSTILE = "<!channel> <!here> <@U0ALICE001> <https://evil.example|your bank> & 🚀"
PINGS = ["<!channel>", "<!here>", "<@U0ALICE001>", "<https://evil.example|your bank>"]

# Slack's Block Kit limits (docs.slack.dev/reference/block-kit).
MESSAGE_BLOCKS = 50
MODAL_BLOCKS = 100
BLOCK_ID = 255
BUTTON_TEXT = 75
OPTION_TEXT = 75
OPTION_DESCRIPTION = 75
OPTION_VALUE = 75
BUTTON_VALUE = 2000
SECTION_TEXT = 3000
CONTEXT_ELEMENTS = 10
INPUT_LABEL = 2000
PLACEHOLDER = 150
ACTIONS_ELEMENTS = 25
LIST_OPTIONS = 10  # radio_buttons, checkboxes
MENU_OPTIONS = 100
VIEW_TITLE = 24
PRIVATE_METADATA = 3000


# --- adversarial requests ---------------------------------------------------------------------


def long_label(i: int) -> str:
    return f"{i:03d} {HOSTILE} {'L' * 200}"[:200]


def long_options(n: int) -> list[JSON]:
    return [{"label": long_label(i), "description": f"{HOSTILE} {'d' * 200}"} for i in range(n)]


LONG_QUESTION = (f"{HOSTILE} Which & why? " * 100)[:3000]
LONG_DETAIL = ("## Plan\n" + "- step <b>&</b> 🚀 <!channel>\n" * 2000)[:30000]
HEADER = f"{HOSTILE} {'h' * 200}"[:200]


def hostile(qid: str, **shape: Any) -> Question:
    return {"id": qid, "question": LONG_QUESTION, "header": HEADER, "detail": LONG_DETAIL, **shape}


def long_id(tag: str) -> str:
    return (tag * 255)[:255]


def plain(qid: str, **shape: Any) -> Question:
    return {"id": qid, "question": f"What about {qid}?", **shape}


def short_options(n: int) -> list[JSON]:
    return [{"label": f"Option {i}"} for i in range(n)]


def mixed(n: int) -> list[Question]:
    shapes: list[Callable[[int], Question]] = [
        lambda i: plain(f"s{i}", options=short_options(4), header=f"Header {i}"),
        lambda i: plain(f"m{i}", options=short_options(30), multi_select=True, detail="A\nplan"),
        lambda i: plain(f"t{i}"),
        lambda i: plain(f"r{i}", options=short_options(30)),
        lambda i: plain(f"u{i}", header="H", detail="D"),
        lambda i: plain(f"c{i}", options=short_options(5), multi_select=True),
    ]
    return [shapes[i % len(shapes)](i) for i in range(n)]


SCENARIOS: dict[str, list[Question]] = {
    "lone buttons, hostile": [hostile(long_id("b"), options=long_options(24))],
    "lone pick menu, hostile": [hostile(long_id("p"), options=long_options(100))],
    "lone checkboxes, hostile": [
        hostile(long_id("c"), options=long_options(10), multi_select=True)
    ],
    "lone multi-select, hostile": [
        hostile(long_id("m"), options=long_options(100), multi_select=True)
    ],
    "lone text, hostile": [hostile(long_id("t"))],
    "batch of every shape, hostile": [
        hostile(long_id("r"), options=long_options(10)),
        hostile(long_id("s"), options=long_options(100)),
        hostile(long_id("c"), options=long_options(10), multi_select=True),
        hostile(long_id("m"), options=long_options(100), multi_select=True),
        hostile(long_id("t")),
    ],
    "batch of 16": [plain(f"q{i}", options=short_options(3)) for i in range(16)],
    "batch of 17": [plain(f"q{i}", options=short_options(3)) for i in range(17)],
    "batch of 60": [plain(f"q{i}", options=short_options(3)) for i in range(60)],
    "mixed batch of 150 with headers and details": mixed(150),
    "emoji everywhere": [
        plain("🚀", options=[{"label": "🚀" * 200, "description": "🎉" * 200}], header="✨"),
        plain("🎉", detail="🧪" * 30000),
    ],
    "ids that take the helper prefix": [
        plain("sq~p.0", options=short_options(3)),
        plain("sq~submit.0"),
        plain("sq1~h.0", header="H"),
    ],
}


def request(questions: list[Question]) -> AskUserQuestionRequest:
    return AskUserQuestionRequest.model_validate({"questions": questions})


# A one-click question has no form; its only modal is "Other".
FORM_SCENARIOS = [name for name, qs in SCENARIOS.items() if not lay_out(request(qs)).one_click]


def scenario(name: str) -> tuple[AskUserQuestionRequest, AskLayout]:
    req = request(SCENARIOS[name])
    return req, lay_out(req)


def answer_for(question: AskUserQuestionItem) -> AskUserQuestionAnswerItem:
    labels = question.labels
    if not labels:
        return AskUserQuestionAnswerItem(id=question.id, custom=f"{HOSTILE}\nsecond line")
    if question.multi_select:
        return AskUserQuestionAnswerItem(id=question.id, selected=labels[:2], custom=HOSTILE)
    return AskUserQuestionAnswerItem(id=question.id, selected=labels[-1:])


def settlement(
    req: AskUserQuestionRequest, verdict: Verdict, *, waiting: bool = False
) -> Settlement:
    answers = {q.id: answer_for(q) for q in req.questions}
    return Settlement(
        verdict=verdict, at=AT, actor=BOB, answers=answers, reason=HOSTILE, waiting=waiting
    )


# Every footer a settled message can show: each ending, and a part answered while others wait.
SHOWN = [(verdict, False) for verdict in Verdict] + [(Verdict.ANSWERED, True)]


# --- walking Slack JSON -----------------------------------------------------------------------


def nodes(value: Any) -> Iterator[JSON]:
    """Every JSON object inside `value`, itself included."""
    if isinstance(value, dict):
        yield value
        for child in value.values():
            yield from nodes(child)
    elif isinstance(value, list):
        for child in value:
            yield from nodes(child)


def mrkdwn_texts(value: Any) -> list[str]:
    return [str(node["text"]) for node in nodes(value) if node.get("type") == "mrkdwn"]


def block_elements(block: JSON) -> list[JSON]:
    if block["type"] == "actions":
        return list(block["elements"])
    if block["type"] == "input":
        return [block["element"]]
    if block["type"] == "section" and "accessory" in block:
        return [block["accessory"]]
    return []


# Our own tokens in mrkdwn: a user mention of the actor and a date; quotes open a line.
OUR_TOKENS = re.compile(r"<@U[A-Z0-9]+>|<!date\^\d+\^\{date_short_pretty\} at \{time\}\|[^<>]*>")
QUOTE = re.compile(r"(?m)^> ")


def unsafe_mrkdwn(text: str) -> list[str]:
    """Why `text` could show agent text as markup (empty when it cannot)."""
    problems = [f"raw {ping!r}" for ping in PINGS if ping in text]
    bare = QUOTE.sub("", OUR_TOKENS.sub("", text))
    if "<" in bare or ">" in bare:
        problems.append(f"an unescaped angle bracket in {bare[:120]!r}")
    return problems


def element_violations(where: str, element: JSON) -> list[str]:
    found: list[str] = []
    kind = element["type"]
    if kind == "button":
        if len(element["text"]["text"]) > BUTTON_TEXT:
            found.append(f"{where}: button text over {BUTTON_TEXT}")
        if len(element.get("value", "")) > BUTTON_VALUE:
            found.append(f"{where}: button value over {BUTTON_VALUE}")
    options = element.get("options", [])
    cap = LIST_OPTIONS if kind in ("radio_buttons", "checkboxes") else MENU_OPTIONS
    if len(options) > cap:
        found.append(f"{where}: {len(options)} options in a {kind}")
    for option in options:
        if len(option["text"]["text"]) > OPTION_TEXT:
            found.append(f"{where}: option text over {OPTION_TEXT}")
        if len(option.get("description", {}).get("text", "")) > OPTION_DESCRIPTION:
            found.append(f"{where}: option description over {OPTION_DESCRIPTION}")
        if len(option["value"]) > OPTION_VALUE:
            found.append(f"{where}: option value over {OPTION_VALUE}")
    if len(element.get("placeholder", {}).get("text", "")) > PLACEHOLDER:
        found.append(f"{where}: placeholder over {PLACEHOLDER}")
    return found


def block_violations(blocks: list[JSON], max_blocks: int) -> list[str]:
    """Every way `blocks` break Slack's limits or our rules (empty when they break none)."""
    found: list[str] = []
    if len(blocks) > max_blocks:
        found.append(f"{len(blocks)} blocks, more than {max_blocks}")
    ids = [str(block.get("block_id", "")) for block in blocks]
    if "" in ids:
        found.append("a block without a block_id")
    if len(set(ids)) != len(ids):
        found.append(f"repeated block ids {sorted({i for i in ids if ids.count(i) > 1})!r}")
    for block in blocks:
        where = str(block.get("block_id"))[:40]
        if len(block.get("block_id", "")) > BLOCK_ID:
            found.append(f"{where}: block_id over {BLOCK_ID}")
        if len(block.get("text", {}).get("text", "")) > SECTION_TEXT:
            found.append(f"{where}: section text over {SECTION_TEXT}")
        if len(block.get("label", {}).get("text", "")) > INPUT_LABEL:
            found.append(f"{where}: label over {INPUT_LABEL}")
        if block["type"] == "context":
            if len(block["elements"]) > CONTEXT_ELEMENTS:
                found.append(f"{where}: more than {CONTEXT_ELEMENTS} context elements")
            found += [
                f"{where}: context text over {SECTION_TEXT}"
                for e in block["elements"]
                if len(e.get("text", "")) > SECTION_TEXT
            ]
        elements = block_elements(block)
        if block["type"] == "actions" and len(elements) > ACTIONS_ELEMENTS:
            found.append(f"{where}: {len(elements)} elements in an actions block")
        action_ids = [e.get("action_id") for e in elements]
        if len(set(action_ids)) != len(action_ids):
            found.append(f"{where}: repeated action ids {action_ids!r}")
        for element in elements:
            found += element_violations(where, element)
    for text in mrkdwn_texts(blocks):
        found += unsafe_mrkdwn(text)
    return found


def message_violations(message: MessageContent) -> list[str]:
    found = block_violations(message.blocks_json(), MESSAGE_BLOCKS)
    if not message.text or len(message.text) > 3000:
        found.append("notification text empty or over 3000")
    found += unsafe_mrkdwn(message.text)
    return found


def view_violations(view: View) -> list[str]:
    payload = view.to_dict()
    found = block_violations(payload["blocks"], MODAL_BLOCKS)
    for key in ("title", "submit", "close"):
        if key in payload and len(payload[key]["text"]) > VIEW_TITLE:
            found.append(f"{key} over {VIEW_TITLE}")
    if len(payload.get("private_metadata", "")) > PRIVATE_METADATA:
        found.append(f"private_metadata over {PRIVATE_METADATA}")
    return found


def by_id(blocks: list[JSON], block_id: str) -> JSON:
    [block] = [b for b in blocks if b.get("block_id") == block_id]
    return block


def interactive_block_types(blocks: list[JSON], ids: list[str]) -> list[str]:
    return [by_id(blocks, qid)["type"] for qid in ids]


def messages(layout: AskLayout, agent: str | None = "Planner") -> list[MessageContent]:
    return [ask_message(ASK, layout, n, agent) for n in range(len(layout.parts))]


# --- every surface stays within Slack's limits ------------------------------------------------


@pytest.mark.parametrize("name", SCENARIOS)
def test_every_message_part_renders_within_slack_limits(name: str) -> None:
    _, layout = scenario(name)
    for message in messages(layout, agent=f"{HOSTILE} agent"):
        assert message_violations(message) == []


@pytest.mark.parametrize("name", FORM_SCENARIOS)
def test_every_form_modal_renders_within_slack_limits(name: str) -> None:
    _, layout = scenario(name)
    for n in range(len(layout.parts)):
        assert view_violations(form_modal(ASK, layout, n, HOSTILE, CHANNEL)) == []


@pytest.mark.parametrize("name", SCENARIOS)
def test_the_other_modal_renders_within_slack_limits(name: str) -> None:
    req, _ = scenario(name)
    for index, question in enumerate(req.questions):
        assert view_violations(other_modal(ASK, index, question)) == []


@pytest.mark.parametrize("name", SCENARIOS)
def test_the_details_modal_renders_within_slack_limits(name: str) -> None:
    req, layout = scenario(name)
    for part in layout.parts:
        assert view_violations(details_modal([q.question for q in part.questions])) == []
    assert view_violations(details_modal(list(req.questions))) == []


@pytest.mark.parametrize(("verdict", "waiting"), SHOWN)
@pytest.mark.parametrize("name", SCENARIOS)
def test_every_settled_message_renders_within_slack_limits(
    name: str, verdict: Verdict, waiting: bool
) -> None:
    req, layout = scenario(name)
    for n in range(len(layout.parts)):
        shown = settled_message(layout, n, settlement(req, verdict, waiting=waiting))
        assert message_violations(shown) == []


@pytest.mark.parametrize("name", SCENARIOS)
def test_the_interactive_block_of_each_question_has_the_question_id_as_block_id(name: str) -> None:
    _, layout = scenario(name)
    for part, message in zip(layout.parts, messages(layout), strict=True):
        ids = [q.question.id for q in part.questions]
        expected = ["actions"] if layout.one_click else ["input"] * len(ids)
        assert interactive_block_types(message.blocks_json(), ids) == expected
        if not layout.one_click:
            modal = form_modal(ASK, layout, part.number, None, CHANNEL).to_dict()
            assert interactive_block_types(modal["blocks"], ids) == ["input"] * len(ids)


@pytest.mark.parametrize("name", SCENARIOS)
def test_no_helper_block_takes_a_question_id(name: str) -> None:
    req, layout = scenario(name)
    ids = {q.id for q in req.questions}
    for message in messages(layout):
        helpers = [b["block_id"] for b in message.blocks_json() if b["block_id"] not in ids]
        assert all(h.startswith(layout.aux_prefix) for h in helpers)


@pytest.mark.parametrize("n", [1, 16, 17, 60])
def test_a_batch_message_part_holds_at_most_50_blocks(n: int) -> None:
    layout = lay_out(request([plain(f"q{i}", options=short_options(3)) for i in range(n)]))
    assert [len(m.blocks) for m in messages(layout)] == {
        1: [3],  # a lone single choice: heading, row, reply hint
        16: [50],
        17: [50, 5],
        60: [50, 50, 50, 38],
    }[n]


def test_a_part_holds_exactly_the_blocks_its_layout_counted() -> None:
    layout = lay_out(request(mixed(150)))
    for part, message in zip(layout.parts, messages(layout), strict=True):
        assert len(message.blocks) == 2 + sum(q.block_count for q in part.questions)


def test_a_batch_of_16_questions_with_200_character_labels_stays_within_50_blocks() -> None:
    layout = lay_out(request([plain(f"q{i}", options=long_options(3)) for i in range(16)]))
    assert [len(m.blocks) for m in messages(layout)] == [
        2 + sum(q.block_count for q in part.questions) for part in layout.parts
    ]
    assert max(len(m.blocks) for m in messages(layout)) <= MESSAGE_BLOCKS


def test_a_batch_of_16_questions_of_3000_characters_stays_within_50_blocks() -> None:
    questions = [
        {"id": f"q{i}", "question": LONG_QUESTION, "options": short_options(3)} for i in range(16)
    ]
    layout = lay_out(request(questions))
    assert max(len(m.blocks) for m in messages(layout)) <= MESSAGE_BLOCKS


# --- agent text is escaped --------------------------------------------------------------------


def all_mrkdwn(name: str) -> list[str]:
    req, layout = scenario(name)
    texts: list[str] = []
    for n, message in enumerate(messages(layout, agent=HOSTILE)):
        texts += [message.text, *mrkdwn_texts(message.blocks_json())]
        if not layout.one_click:
            texts += mrkdwn_texts(form_modal(ASK, layout, n, HOSTILE, CHANNEL).to_dict())
        for verdict, waiting in SHOWN:
            settled = settled_message(layout, n, settlement(req, verdict, waiting=waiting))
            texts += [settled.text, *mrkdwn_texts(settled.blocks_json())]
    texts += mrkdwn_texts(details_modal(list(req.questions)).to_dict())
    texts += mrkdwn_texts([b.to_dict() for b in thread_root(HOSTILE, HOSTILE).blocks])
    return texts


@pytest.mark.parametrize("name", [n for n in SCENARIOS if "hostile" in n])
def test_agent_text_never_appears_unescaped_in_mrkdwn(name: str) -> None:
    assert [problem for text in all_mrkdwn(name) for problem in unsafe_mrkdwn(text)] == []


def test_a_hostile_question_is_shown_escaped() -> None:
    layout = lay_out(request([plain("q", header=HOSTILE, options=short_options(2))]))
    [section, _, _hint] = ask_message(ASK, layout, 0, None).blocks_json()
    assert section["text"]["text"] == f"*{escape(HOSTILE)}*\nWhat about q?"


def test_the_thread_root_names_the_agent_escaped_with_its_id() -> None:
    root = thread_root("Planner <!channel>", "agent-7")
    assert [b.to_dict() for b in root.blocks] == [
        {
            "type": "section",
            "block_id": "sq~root",
            "text": {
                "type": "mrkdwn",
                "verbatim": True,
                "text": ":robot_face: Agent Planner &lt;!channel&gt; (`agent-7`) needs answers "
                "from people. Its questions appear in this thread.",
            },
        },
    ]
    assert root.text == "Planner &lt;!channel&gt; needs answers from people"


# --- one-click messages -----------------------------------------------------------------------


def test_a_one_click_question_is_a_heading_and_a_row_of_option_buttons_and_other() -> None:
    layout = lay_out(request([plain("q", options=short_options(3))]))
    message = ask_message(ASK, layout, 0, "Planner")
    [section, row, _hint] = message.blocks_json()
    assert section["block_id"] == "sq~h.0"
    assert "accessory" not in section
    assert row["block_id"] == "q"
    assert [(e["action_id"], e["text"]["text"], e["value"]) for e in row["elements"]] == [
        ("sq_pick.0", "Option 0", f"{ASK}/0"),
        ("sq_pick.1", "Option 1", f"{ASK}/1"),
        ("sq_pick.2", "Option 2", f"{ASK}/2"),
        ("sq_other", "Other…", f"{ASK}/0"),
    ]
    assert message.text == "Planner asks: What about q?"


def test_a_one_click_row_of_24_buttons_and_other_fills_the_25_element_row() -> None:
    layout = lay_out(request([plain("q", options=short_options(24))]))
    [_, row, _hint] = ask_message(ASK, layout, 0, None).blocks_json()
    assert len(row["elements"]) == 25


def test_a_long_label_on_a_button_is_cut_to_75_characters() -> None:
    layout = lay_out(request([plain("q", options=[{"label": "L" * 200}])]))
    [_, row, _hint] = ask_message(ASK, layout, 0, None).blocks_json()
    assert row["elements"][0]["text"]["text"] == "L" * 74 + "…"


def test_a_pick_menu_values_name_the_ask_and_the_option_index() -> None:
    layout = lay_out(request([plain("q", options=short_options(100))]))
    [_, row, _hint] = ask_message(ASK, layout, 0, None).blocks_json()
    menu, other = row["elements"]
    assert (menu["type"], menu["action_id"], other["action_id"]) == (
        "static_select",
        "sq_pick",
        "sq_other",
    )
    assert [o["value"] for o in menu["options"]] == [f"{ASK}/{i}" for i in range(100)]


def test_a_cut_question_offers_view_all_for_its_details() -> None:
    layout = lay_out(request([plain("q", detail="d" * 601, options=short_options(2))]))
    [section, _, _hint] = ask_message(ASK, layout, 0, None).blocks_json()
    accessory = section["accessory"]
    assert (accessory["action_id"], accessory["text"]["text"], accessory["value"]) == (
        "sq_details",
        "View all",
        f"{ASK}/0",
    )


def test_a_short_detail_is_previewed_as_a_quote_without_view_all() -> None:
    layout = lay_out(request([plain("q", detail="line one\nline <two>", options=short_options(2))]))
    [section, _, _hint] = ask_message(ASK, layout, 0, None).blocks_json()
    assert section["text"]["text"] == "What about q?\n> line one\n> line &lt;two&gt;"
    assert "accessory" not in section


def test_a_detail_of_blank_lines_is_previewed_as_an_empty_quote() -> None:
    layout = lay_out(request([plain("q", header="H", detail=" \n\n ", options=short_options(2))]))
    [section, _, _hint] = ask_message(ASK, layout, 0, None).blocks_json()
    assert section["text"]["text"] == "*H*\nWhat about q?\n>"


# --- form messages ----------------------------------------------------------------------------


def test_a_batch_part_is_a_heading_each_question_and_a_submit_row() -> None:
    layout = lay_out(request([plain("a", options=short_options(3)), plain("b", header="About b")]))
    blocks = ask_message(ASK, layout, 0, "Planner").blocks_json()
    assert [b["block_id"] for b in blocks] == [
        "sq~p.0",
        "a",
        "sq~o.0",
        "sq~s.0",
        "sq~h.1",
        "b",
        "sq~s.1",
        "sq~submit.0",
    ]
    assert blocks[0]["text"]["text"] == "Planner asks 2 questions"
    assert blocks[4]["text"]["text"] == "*About b*"


def test_each_form_shape_gets_its_input_element() -> None:
    layout = lay_out(
        request(
            [
                plain("radio", options=short_options(10)),
                plain("select", options=short_options(11)),
                plain("checks", options=short_options(10), multi_select=True),
                plain("multi", options=short_options(11), multi_select=True),
                plain("text"),
            ]
        )
    )
    blocks = ask_message(ASK, layout, 0, None).blocks_json()
    ids = ["radio", "select", "checks", "multi", "text"]
    assert [by_id(blocks, i)["element"]["type"] for i in ids] == [
        "radio_buttons",
        "static_select",
        "checkboxes",
        "multi_static_select",
        "plain_text_input",
    ]
    assert {by_id(blocks, i)["element"]["action_id"] for i in ids} == {"sq_input"}
    # Messages never enforce required inputs, so the question reads without "(optional)".
    assert all(by_id(blocks, i)["optional"] is False for i in ids)


def test_a_form_modal_leaves_every_input_optional_so_other_and_skip_can_stand_in() -> None:
    layout = lay_out(request([plain("radio", options=short_options(3)), plain("text")]))
    view = form_modal(ASK, layout, 0, None, "C1").to_dict()
    inputs = [b for b in view["blocks"] if b["type"] == "input"]
    assert inputs
    assert all(b["optional"] is True for b in inputs)


def test_a_modal_question_shown_optional_says_what_its_answer_needs() -> None:
    # Slack labels these "(optional)"; an empty Submit is still refused (issue 23, finding 7).
    layout = lay_out(request([plain("radio", options=short_options(3)), plain("text")]))
    view = form_modal(ASK, layout, 0, None, "C1").to_dict()
    hints = {
        b["block_id"]: b.get("hint", {}).get("text") for b in view["blocks"] if b["type"] == "input"
    }
    skippable = layout.questions[0].skippable
    assert hints["radio"] == (
        "Required: choose an answer or type one under Other, or skip it."
        if skippable
        else "Required: choose an answer or type one under Other."
    )


def test_form_options_are_valued_by_index_with_descriptions_cut_to_75() -> None:
    options = [{"label": "A"}, {"label": "B", "description": "x" * 100}]
    layout = lay_out(request([plain("q", options=options), plain("t")]))
    element = by_id(ask_message(ASK, layout, 0, None).blocks_json(), "q")["element"]
    assert [(o["value"], o["text"]["text"]) for o in element["options"]] == [("0", "A"), ("1", "B")]
    assert "description" not in element["options"][0]
    assert element["options"][1]["description"]["text"] == "x" * 74 + "…"


def test_the_skip_block_is_one_checkbox_valued_skip() -> None:
    layout = lay_out(request([plain("a", options=short_options(2)), plain("b")]))
    skip = by_id(ask_message(ASK, layout, 0, None).blocks_json(), "sq~s.0")["element"]
    assert (skip["type"], [o["value"] for o in skip["options"]]) == ("checkboxes", ["skip"])


def test_a_lone_form_question_has_no_skip() -> None:
    layout = lay_out(request([plain("q", options=short_options(3), multi_select=True)]))
    blocks = ask_message(ASK, layout, 0, None).blocks_json()
    assert [b["block_id"] for b in blocks] == ["sq~p.0", "q", "sq~o.0", "sq~submit.0"]
    assert blocks[0]["text"]["text"] == "An agent asks:"


def test_the_submit_row_names_the_ask_and_the_part() -> None:
    layout = lay_out(request([plain(f"q{i}", options=short_options(3)) for i in range(17)]))
    last = ask_message(ASK, layout, 1, None).blocks_json()
    assert last[0]["text"]["text"] == "An agent asks 17 questions — part 2 of 2"
    row = last[-1]
    assert row["block_id"] == "sq~submit.1"
    assert [(e["action_id"], e["value"]) for e in row["elements"]] == [
        ("sq_submit", f"{ASK}/1"),
        ("sq_form", f"{ASK}/1"),
    ]


def test_a_long_question_in_a_form_gets_a_cut_note_and_a_label_cut_to_2000() -> None:
    layout = lay_out(
        request([plain("a", options=short_options(2)), {"id": "b", "question": "Q" * 2500}])
    )
    blocks = ask_message(ASK, layout, 0, None).blocks_json()
    assert by_id(blocks, "b")["label"]["text"] == "Q" * 1999 + "…"
    note = by_id(blocks, "sq~h.1")
    assert note["text"]["text"] == (
        "_Part of this question is cut short here; *View all* shows it in full._"
    )
    assert note["accessory"]["value"] == f"{ASK}/1"


# --- modals -----------------------------------------------------------------------------------


def test_the_form_modal_reports_closing_and_carries_ask_part_and_channel() -> None:
    layout = lay_out(request([plain(f"q{i}", options=short_options(3)) for i in range(17)]))
    view = form_modal(ASK, layout, 1, "Planner", CHANNEL).to_dict()
    assert (view["type"], view["callback_id"], view["notify_on_close"]) == (
        "modal",
        "sq_form",
        True,
    )
    assert (view["title"]["text"], view["submit"]["text"], view["close"]["text"]) == (
        "Answer the agent",
        "Submit",
        "Cancel",
    )
    assert view["private_metadata"] == f'{{"ask":"{ASK}","part":1,"channel":"{CHANNEL}"}}'
    assert ViewMeta.model_validate_json(view["private_metadata"]) == ViewMeta(
        ask=ASK, part=1, channel=CHANNEL
    )
    assert [b["block_id"] for b in view["blocks"]] == ["sq~m.1", "q16", "sq~o.16", "sq~s.16"]


def test_the_other_modal_takes_text_in_a_block_named_by_the_question_id() -> None:
    question = AskUserQuestionItem(id="q" * 255, question="Pick one", options=[{"label": "A"}])
    view = other_modal(ASK, 0, question).to_dict()
    assert (view["callback_id"], view["title"]["text"]) == ("sq_other", "Your own answer")
    assert json.loads(view["private_metadata"]) == {"ask": ASK, "question": 0}
    [block] = view["blocks"]
    assert (block["type"], block["block_id"], block["element"]["type"]) == (
        "input",
        "q" * 255,
        "plain_text_input",
    )
    assert block["element"]["action_id"] == "sq_input"


def test_the_details_modal_shows_a_30000_character_detail_in_full() -> None:
    question = AskUserQuestionItem(
        id="q", question="Approve?", detail=LONG_DETAIL, options=long_options(3)
    )
    view = details_modal([question]).to_dict()
    shown = "".join(mrkdwn_texts(view["blocks"]))
    assert all(f"> {escape(line)}\n" in shown for line in LONG_DETAIL.splitlines()[:-1])
    assert all(escape(o.label) in shown for o in question.options or [])
    assert (view["callback_id"], view["title"]["text"]) == ("sq_details", "Question details")


def test_the_details_modal_says_how_much_it_could_not_show() -> None:
    huge = "x" * 400_000
    view = details_modal([AskUserQuestionItem(id="q", question="Q", detail=huge)]).to_dict()
    blocks = view["blocks"]
    assert len(blocks) == MODAL_BLOCKS
    shown = sum(len(b["text"]["text"]) for b in blocks[:-1])
    hidden = len("Q\n\n> " + huge) - shown
    assert blocks[-1]["block_id"] == "sq~d.more"
    assert blocks[-1]["elements"][0]["text"] == f"_{hidden} more characters are not shown._"


# --- settled messages -------------------------------------------------------------------------


def settle_one(
    verdict: Verdict, item: AskUserQuestionAnswerItem | None = None, *, waiting: bool = False
) -> list[JSON]:
    layout = lay_out(
        request([plain("q", options=[{"label": "Postgres <b> & co"}, {"label": "B"}])])
    )
    answers = {"q": item} if item else {}
    return settled_message(
        layout,
        0,
        Settlement(verdict=verdict, at=AT, actor=ALICE, answers=answers, waiting=waiting),
    ).blocks_json()


def test_the_settled_message_shows_what_was_chosen_by_whom_and_when() -> None:
    item = AskUserQuestionAnswerItem(id="q", selected=["Postgres <b> & co"])
    blocks = settle_one(Verdict.ANSWERED, item)
    assert blocks == [
        {
            "type": "section",
            "block_id": "sq~a.0",
            "text": {
                "type": "mrkdwn",
                "verbatim": True,
                "text": "*What about q?*\n→ *Postgres &lt;b&gt; &amp; co*",
            },
        },
        {
            "type": "context",
            "block_id": "sq~v.0",
            "elements": [
                {
                    "type": "mrkdwn",
                    "verbatim": True,
                    "text": f":white_check_mark: Answered by <@{ALICE}> · {STAMP}",
                }
            ],
        },
    ]


def test_the_settled_notification_text_leaves_out_the_date_markup() -> None:
    layout = lay_out(request([plain("q", options=short_options(2))]))
    settled = settled_message(layout, 0, Settlement(verdict=Verdict.ANSWERED, at=AT, actor=ALICE))
    assert settled.text == f":white_check_mark: Answered by <@{ALICE}>"


@pytest.mark.parametrize("verdict", list(Verdict))
def test_a_settled_message_has_no_controls_left(verdict: Verdict) -> None:
    item = AskUserQuestionAnswerItem(id="q", selected=["B"])
    assert {b["type"] for b in settle_one(verdict, item)} == {"section", "context"}


def test_a_custom_answer_is_shown_as_a_quote_named_as_the_other_answer() -> None:
    # Named, so no arrow stands alone above the quote (issue 23, finding 8).
    item = AskUserQuestionAnswerItem(id="q", custom="my <own>\nanswer")
    [section, _] = settle_one(Verdict.ANSWERED, item)
    assert section["text"]["text"] == (
        "*What about q?*\n→ _other answer:_\n> my &lt;own&gt;\n> answer"
    )


def test_a_skipped_question_is_shown_as_skipped() -> None:
    [section, _] = settle_one(Verdict.ANSWERED, AskUserQuestionAnswerItem(id="q"))
    assert section["text"]["text"] == "*What about q?*\n→ _skipped_"


def test_a_question_without_an_answer_is_shown_as_unanswered() -> None:
    [section, _] = settle_one(Verdict.ANSWERED, waiting=True)
    assert section["text"]["text"] == "*What about q?*\n→ _no answer_"


@pytest.mark.parametrize(
    ("verdict", "footer"),
    [
        (Verdict.ANSWERED, f":white_check_mark: Answered by <@{ALICE}> · {STAMP}"),
        (
            Verdict.WITHDRAWN,
            f":heavy_minus_sign: Withdrawn, nobody answered: the agent no longer needs an answer · {STAMP}",
        ),
        (
            Verdict.CLOSED,
            f":x: <@{ALICE}> closed the form; the agent was told the question was dismissed · {STAMP}",
        ),
        (Verdict.CANCELLED, f":speech_balloon: <@{ALICE}> chose to discuss this instead · {STAMP}"),
        (Verdict.EXPIRED, f":alarm_clock: Expired, nobody answered · {STAMP}"),
        (Verdict.FAILED, f":warning: Could not be collected · {STAMP}"),
    ],
)
def test_each_verdict_has_its_footer(verdict: Verdict, footer: str) -> None:
    blocks = settle_one(verdict, AskUserQuestionAnswerItem(id="q", selected=["B"]))
    assert blocks[-1]["elements"][0]["text"] == footer


def test_a_part_answered_while_others_wait_says_so_in_its_footer() -> None:
    blocks = settle_one(
        Verdict.ANSWERED, AskUserQuestionAnswerItem(id="q", selected=["B"]), waiting=True
    )
    assert blocks[-1]["elements"][0]["text"] == (
        f":white_check_mark: This part answered by <@{ALICE}> · {STAMP} · waiting for the rest"
    )


@pytest.mark.parametrize("verdict", [v for v in Verdict if v is not Verdict.ANSWERED])
def test_a_settled_message_without_an_answer_lists_only_the_questions(verdict: Verdict) -> None:
    [section, _] = settle_one(verdict, AskUserQuestionAnswerItem(id="q", selected=["B"]))
    assert section["text"]["text"] == "*What about q?*"


def test_a_reason_is_escaped_in_the_footer() -> None:
    layout = lay_out(request([plain("q", options=short_options(2))]))
    settled = settled_message(
        layout, 0, Settlement(verdict=Verdict.FAILED, at=AT, reason="slack said <!channel>")
    )
    footer = settled.blocks_json()[-1]["elements"][0]["text"]
    assert footer == f":warning: Could not be collected: slack said &lt;!channel&gt; · {STAMP}"


def test_a_settled_part_shows_only_its_own_questions() -> None:
    layout = lay_out(request([plain(f"q{i}", options=short_options(3)) for i in range(17)]))
    settled = settled_message(
        layout, 1, Settlement(verdict=Verdict.ANSWERED, at=AT, actor=ALICE, waiting=True)
    )
    [section, footer] = settled.blocks_json()
    assert section["text"]["text"] == "*What about q16?*\n→ _no answer_"
    assert footer["block_id"] == "sq~v.1"


# --- entities are never cut in half -----------------------------------------------------------

ENTITY = re.compile(r"&(?:amp|lt|gt);")


def split_entities(texts: list[str]) -> list[str]:
    """The places where an `&` does not start a whole entity."""
    return [
        text[max(0, m.start() - 10) : m.start() + 10]
        for text in texts
        for m in re.finditer("&", text)
        if not ENTITY.match(text, m.start())
    ]


def test_a_heading_cut_at_3000_characters_never_splits_an_entity() -> None:
    question = {
        "id": "q",
        "question": "q" * 1500,
        "header": "h" * 300,
        "detail": "\n" * 300 + "&" * 400,
        "options": short_options(2),
    }
    blocks = ask_message(ASK, lay_out(request([question])), 0, None).blocks_json()
    assert split_entities(mrkdwn_texts(blocks)) == []


def test_a_settled_answer_cut_at_3000_characters_never_splits_an_entity() -> None:
    labels = [f"{i:02d}" + "&" * 100 for i in range(40)]
    question = plain("q", options=[{"label": label} for label in labels], multi_select=True)
    layout = lay_out(request([question]))
    item = AskUserQuestionAnswerItem(id="q", selected=labels)
    settled = settled_message(
        layout, 0, Settlement(verdict=Verdict.ANSWERED, at=AT, actor=ALICE, answers={"q": item})
    )
    assert split_entities(mrkdwn_texts(settled.blocks_json())) == []


# --- the checker itself -----------------------------------------------------------------------


def test_the_limit_checker_flags_what_slack_would_refuse() -> None:
    option = {"text": {"type": "plain_text", "text": "o" * 76}, "value": "v" * 76}
    blocks: list[JSON] = [
        {"type": "section", "block_id": "x", "text": {"type": "mrkdwn", "text": "<!channel>"}},
        {
            "type": "input",
            "block_id": "x",
            "label": {"type": "plain_text", "text": "l"},
            "element": {"type": "checkboxes", "action_id": "a", "options": [option] * 11},
        },
        *({"type": "divider", "block_id": f"d{i}"} for i in range(49)),
    ]
    assert block_violations(blocks, MESSAGE_BLOCKS) == [
        "51 blocks, more than 50",
        "repeated block ids ['x']",
        "x: 11 options in a checkboxes",
        *["x: option text over 75", "x: option value over 75"] * 11,
        "raw '<!channel>'",
        "an unescaped angle bracket in '<!channel>'",
    ]


@pytest.mark.parametrize("verdict", [Verdict.WITHDRAWN, Verdict.EXPIRED])
def test_a_withdrawn_or_expired_ask_says_nobody_answered_and_never_denied(verdict: Verdict) -> None:
    footer = settle_one(verdict)[-1]["elements"][0]["text"]
    assert "nobody answered" in footer
    assert not any(word in footer.lower() for word in ("denied", "declined", "rejected"))


# --- option descriptions where Slack cannot show them; the reply hint (issue 23) --------------

DESCRIBED = [
    {"label": "Postgres", "description": "Shared by every replica"},
    {"label": "SQLite", "description": "One *file*, one process"},
    {"label": "DynamoDB"},
]


def test_a_one_click_question_lists_its_options_descriptions_under_the_question() -> None:
    layout = lay_out(request([plain("db", options=DESCRIBED)]))
    [_, notes, row, _] = ask_message(ASK, layout, 0, None).blocks_json()
    assert notes["elements"][0]["text"] == (
        "Postgres: Shared by every replica\nSQLite: One \u2217file\u2217, one process"
    )
    assert row["block_id"] == "db"


def test_a_menu_in_a_form_lists_its_options_descriptions_above_it() -> None:
    menu = [{"label": f"Option {i}", "description": f"about {i}"} for i in range(12)]
    layout = lay_out(request([plain("a", options=menu), plain("b")]))
    blocks = ask_message(ASK, layout, 0, None).blocks_json()
    ids = [b["block_id"] for b in blocks]
    notes = blocks[ids.index("a") - 1]
    assert notes["type"] == "context"
    assert notes["elements"][0]["text"].splitlines()[:2] == [
        "Option 0: about 0",
        "Option 1: about 1",
    ]


def test_radio_buttons_show_descriptions_themselves_so_no_list_is_added() -> None:
    layout = lay_out(request([plain("a", options=DESCRIBED), plain("b")]))
    kinds = [b["type"] for b in ask_message(ASK, layout, 0, None).blocks_json()]
    assert "context" not in kinds


def test_a_lone_single_choice_says_a_thread_reply_answers_it() -> None:
    layout = lay_out(request([plain("db", options=short_options(2))]))
    hint = ask_message(ASK, layout, 0, None).blocks_json()[-1]
    assert hint["elements"][0]["text"] == "Or reply in this thread with an option's name or number."


def test_a_lone_text_question_says_a_thread_reply_answers_it() -> None:
    layout = lay_out(request([plain("name")]))
    blocks = ask_message(ASK, layout, 0, None).blocks_json()
    [hint] = [b for b in blocks if b["type"] == "context"]
    assert hint["elements"][0]["text"] == "Or reply in this thread with your answer."


def test_a_batch_does_not_say_a_reply_answers_it() -> None:
    layout = lay_out(request([plain("a"), plain("b")]))
    assert [
        b for b in ask_message(ASK, layout, 0, None).blocks_json() if b["type"] == "context"
    ] == []
