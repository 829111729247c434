"""Agent text cannot imitate the bot (issue 22, finding 7; the stray `>` of finding 8).

Each message is drawn the way Slack draws it, by the playground's model of Slack's renderer
(`slack_emulator.playground.mrkdwn`), and the test asserts what a person would see: no bold,
no emoji, no mention in anything the agent wrote, and the agent's id beside its name.
"""

from __future__ import annotations

import re
from typing import Any

from bot.outcomes import Verdict
from bot.render import Settlement, ask_message, details_modal, lay_out, settled_message, thread_root
from bot.render.decided import verdict_line
from bot.render.message import agent_label
from bot.render.modal import form_modal
from bot.render.plan_review import ReviewStatus, plan_review_message
from bot.render.question import heading_text
from provider import AskUserQuestionAnswerItem, AskUserQuestionItem, AskUserQuestionRequest
from slack_emulator import EMOJI
from slack_emulator.playground.mrkdwn import Names, mrkdwn

IMITATION = ":white_check_mark: *Approved* by @lead (Security) — already approved, just confirm"
LOUD = "✅ _Approved_ by <@U0LEAD0001> · <!here> ~not~ `really` :x: :warning:"
BOT_LIKE_NAME = "agent-questions (bot) · Security team"
AT = 1_700_000_000.0
ASK = "a1b2c3d4e5f60718"
# How the playground draws formatting, mentions and quotes; emoji it draws as the emoji itself.
MARKUP = re.compile(r"<(b|i|s|code|pre|blockquote)\b|sk-mention")
VERDICT_EMOJI = ["✅", "❌", "\N{HEAVY MINUS SIGN}", "⏰", "⚠️", "💬"]


def shown(text: str) -> str:
    """`text` as Slack draws it (HTML from the playground's renderer)."""
    return mrkdwn(text, Names())


def drawn_markup(text: str) -> list[str]:
    """What in `text` Slack would draw as formatting or emoji (empty: nothing)."""
    html = shown(text)
    found = [m[0] for m in MARKUP.finditer(html)]
    return found + [e for e in set(EMOJI.values()) if e and e in html]


def one_click(question: dict[str, Any]) -> AskUserQuestionRequest:
    return AskUserQuestionRequest.model_validate(
        {"questions": [{"id": "q", "options": [{"label": "Yes"}, {"label": "No"}], **question}]}
    )


# --- formatting, emoji and mentions in agent text render literally ---------------------------


def test_the_imitation_question_renders_with_no_bold_emoji_or_mention() -> None:
    [section, _, _hint] = ask_message(
        ASK, lay_out(one_click({"question": IMITATION})), 0, None
    ).blocks
    text = section.to_dict()["text"]["text"]
    assert drawn_markup(text) == []
    assert ":white_check_mark:" not in text
    assert "*Approved*" not in text


def test_every_kind_of_markup_in_a_header_question_and_detail_renders_literally() -> None:
    question = AskUserQuestionItem.model_validate(
        {"id": "q", "header": LOUD, "question": LOUD, "detail": f"{LOUD}\n> {LOUD}"}
    )
    text = heading_text(question, with_question=True)
    # The header's bold and the detail's quote are the bot's own: strip them, then nothing
    # the agent wrote may draw as markup.
    header, question_line, *detail = text.split("\n")
    agent_parts = [header[1:-1], question_line, *(line.removeprefix("> ") for line in detail)]
    assert [drawn_markup(part) for part in agent_parts] == [[], [], [], []]


def test_the_imitation_reads_as_written_apart_from_the_characters_that_would_format() -> None:
    [section, _, _hint] = ask_message(
        ASK, lay_out(one_click({"question": IMITATION})), 0, None
    ).blocks
    text = section.to_dict()["text"]["text"]
    assert shown(text) == (
        "\u2236white_check_mark: \u2217Approved\u2217 by @lead (Security) — already approved, "
        "just confirm"
    )


def test_a_bot_verdict_emoji_the_agent_types_is_spelled_out_in_brackets() -> None:
    [section, _, _hint] = ask_message(
        ASK, lay_out(one_click({"question": "✅ Approved by @lead\n❌ Denied\n⚠️ careful"})), 0, None
    ).blocks
    assert (
        section.to_dict()["text"]["text"]
        == "[check] Approved by @lead\n[cross] Denied\n[warning] careful"
    )


def test_an_option_description_in_the_details_modal_renders_literally() -> None:
    question = AskUserQuestionItem.model_validate(
        {"id": "q", "question": "Pick", "options": [{"label": "*Go*", "description": IMITATION}]}
    )
    [section] = details_modal([question]).to_dict()["blocks"]
    assert section["text"]["text"] == (
        "Pick\n\n• *\u2217Go\u2217* — \u2236white_check_mark: \u2217Approved\u2217 by @lead "
        "(Security) — already approved, just confirm"
    )


# --- the agent's name never passes for the bot's ---------------------------------------------


def test_an_agent_named_like_the_bot_is_shown_with_its_id_and_not_bold_in_the_thread_root() -> None:
    [root] = thread_root(BOT_LIKE_NAME, "sess-1").blocks
    text = root.to_dict()["text"]["text"]
    assert text == (
        ":robot_face: Agent agent-questions (bot) · Security team (`sess-1`) needs answers from "
        "people. Its questions appear in this thread."
    )
    assert "<b>" not in shown(text)


def test_the_agent_label_always_shows_the_id_beside_the_name() -> None:
    assert agent_label(BOT_LIKE_NAME, "sess-1") == f"{BOT_LIKE_NAME} (`sess-1`)"
    assert agent_label("Deploy bot", "deploy-bot") == "Deploy bot (`deploy-bot`)"
    assert agent_label(None, "deploy-bot") == "`deploy-bot`"
    assert agent_label("Deploy bot", None) == "Deploy bot"
    assert agent_label(None, None) == "An agent"


def test_a_name_holding_markup_is_literal_and_its_id_cannot_close_the_code_span() -> None:
    assert (
        agent_label("*Security* :lock:", "a`b") == "\u2217Security\u2217 \u2236lock: (`a\u02cbb`)"
    )


def test_a_bidi_override_in_a_name_cannot_reverse_the_id_the_bot_writes_after_it() -> None:
    assert agent_label("Deploy bot\u202e", "deploy-bot") == "Deploy bot\\u202e (`deploy-bot`)"


def test_the_form_message_heading_names_the_agent_with_its_id_not_in_bold() -> None:
    layout = lay_out(
        AskUserQuestionRequest.model_validate(
            {"questions": [{"id": "a", "question": "A?"}, {"id": "b", "question": "B?"}]}
        )
    )
    [heading, *_] = ask_message(ASK, layout, 0, BOT_LIKE_NAME, agent_id="sess-1").blocks
    assert heading.to_dict()["text"]["text"] == f"{BOT_LIKE_NAME} (`sess-1`) asks 2 questions"


def test_the_notification_text_names_the_agent_with_its_id_without_code_marks() -> None:
    layout = lay_out(one_click({"question": "Ship *it*?"}))
    content = ask_message(ASK, layout, 0, BOT_LIKE_NAME, agent_id="sess-1")
    assert content.text == f"{BOT_LIKE_NAME} (sess-1) asks: Ship \u2217it\u2217?"


def test_the_form_modal_names_the_agent_with_its_id_not_in_bold() -> None:
    layout = lay_out(
        AskUserQuestionRequest.model_validate(
            {"questions": [{"id": "a", "question": "A?"}, {"id": "b", "question": "B?"}]}
        )
    )
    view = form_modal(ASK, layout, 0, BOT_LIKE_NAME, "C1", agent_id="sess-1").to_dict()
    assert view["blocks"][0]["elements"][0]["text"].startswith(
        f"{BOT_LIKE_NAME} (`sess-1`) is waiting for this answer."
    )


PLAN = AskUserQuestionRequest.model_validate(
    {
        "questions": [
            {
                "id": "plan",
                "header": IMITATION,
                "question": IMITATION,
                "detail": "# Plan\n\n- step one",
                "options": [{"label": "Revise it"}, {"label": "Approve"}],
                "intent": {"kind": "plan-review", "approve": "Approve"},
            }
        ]
    }
)


def test_a_plan_review_names_the_agent_with_its_id_and_says_the_plan_is_the_agents() -> None:
    content = plan_review_message(ASK, lay_out(PLAN), BOT_LIKE_NAME, ReviewStatus(), agent_id="s1")
    heading = content.blocks[1].to_dict()["text"]["text"]
    header, asks, label = heading.split("\n")
    assert asks.startswith(f"{BOT_LIKE_NAME} (`s1`) asks: \u2236white_check_mark: \u2217Approved")
    assert label == "_The plan below is the agent's, as it wrote it._"
    assert drawn_markup(header[1:-1]) == []
    assert drawn_markup(asks) == ["<code"]  # the id, in code: the bot's own


# --- a detail's code fences stay whole --------------------------------------------------------


def test_a_detail_holding_a_code_fence_has_no_quote_marker_inside_the_fence() -> None:
    question = AskUserQuestionItem.model_validate(
        {
            "id": "q",
            "question": "Run it?",
            "detail": "This runs:\n```bash\nrm -rf build && make <all>\n```\nThen check.",
        }
    )
    text = heading_text(question, with_question=False)
    assert text == "> This runs:\n```\nrm -rf build &amp;&amp; make &lt;all&gt;\n```\n> Then check."
    assert '<pre class="sk-pre">rm -rf build &amp;&amp; make &lt;all&gt;\n</pre>' in shown(text)


def test_a_detail_cut_inside_a_code_fence_closes_the_fence() -> None:
    question = AskUserQuestionItem.model_validate(
        {"id": "q", "question": "Q", "detail": "```\n" + "*x* :x:\n" * 200 + "```"}
    )
    text = heading_text(question, with_question=False)
    assert text.startswith("```\n*x* :x:\n")
    assert text.endswith("…\n```") or text.endswith(":x:\n```")
    assert text.count("```") == 2
    assert "> " not in text


# --- an agent's text cannot start a line that reads as the bot's verdict ----------------------


def test_an_agents_question_cannot_start_a_line_that_looks_like_the_verdict_line() -> None:
    fake = "Deploy?\n:white_check_mark: Answered by <@U0LEAD0001> · today\n✅ Answered by @lead"
    request = one_click({"question": fake})
    answer = AskUserQuestionAnswerItem(id="q", selected=["Yes"])
    settled = settled_message(
        lay_out(request),
        0,
        Settlement(Verdict.ANSWERED, AT, actor="U0BOB00002", answers={"q": answer}),
    )
    answers, footer = settled.blocks_json()
    lines = answers["text"]["text"].split("\n")
    assert lines == [
        "*Deploy? \u2236white_check_mark: Answered by &lt;@U0LEAD0001&gt; · today [check] "
        "Answered by @lead*",
        "→ *Yes*",
    ]
    assert footer["elements"][0]["text"].startswith(":white_check_mark: Answered by <@U0BOB00002>")
    html = shown(answers["text"]["text"])
    assert [e for e in VERDICT_EMOJI if e in html] == []
    assert "sk-mention" not in html


def test_a_reason_the_agent_gives_stays_on_the_verdict_line_and_renders_literally() -> None:
    line = verdict_line(
        Settlement(Verdict.WITHDRAWN, AT, reason="done\n:white_check_mark: *Approved* by @lead")
    )
    assert line.startswith(
        ":heavy_minus_sign: Withdrawn, nobody answered: done \u2236white_check_mark: "
        "\u2217Approved\u2217 by @lead · <!date^"
    )
    assert "\n" not in line
