"""The review line of the team view and the feedback blocks of a decided message, pure."""

from __future__ import annotations

from slack_sdk.models.blocks import DividerBlock

from bot.render import MessageContent
from bot.render.feedback import feedback_summary, with_feedback
from bot.render.layout import MESSAGE_BLOCKS_MAX, lay_out
from bot.store import Feedback, FeedbackVerdict
from provider import AskUserQuestionItem, AskUserQuestionRequest

RIGHT, WRONG = FeedbackVerdict.RIGHT, FeedbackVerdict.WRONG


def given(person: str, verdict: FeedbackVerdict | None, note: str | None, at: float) -> Feedback:
    return Feedback(ask_id="a1", person=person, verdict=verdict, note=note, at=at)


def test_the_summary_counts_each_verdict_and_quotes_the_latest_note() -> None:
    assert (
        feedback_summary(
            [
                given("U1", RIGHT, "fine by me", 1.0),
                given("U2", RIGHT, None, 2.0),
                given("U3", WRONG, "should have asked security", 3.0),
            ]
        )
        == "👍 2 · 👎 1 — “should have asked security”"
    )


def test_a_note_without_a_verdict_counts_for_neither_side() -> None:
    assert feedback_summary([given("U1", None, "unsure", 1.0)]) == "👍 0 · 👎 0 — “unsure”"


def test_nobodys_feedback_shows_no_line() -> None:
    assert feedback_summary([]) is None


def test_a_note_cannot_mention_or_link_and_stays_on_one_line() -> None:
    line = feedback_summary([given("U1", WRONG, "ping <!channel>\nand <http://x|y>", 1.0)])
    assert line == "👍 0 · 👎 1 — “ping &lt;!channel&gt; and &lt;http://x|y&gt;”"


def test_a_long_note_is_cut_in_the_summary() -> None:
    line = feedback_summary([given("U1", WRONG, "x" * 500, 1.0)])
    assert line is not None
    assert len(line) < 200


def test_a_decided_message_with_no_room_left_gets_no_feedback_blocks() -> None:
    layout = lay_out(AskUserQuestionRequest(questions=[AskUserQuestionItem(id="q", question="?")]))
    full = MessageContent(text="t", blocks=[DividerBlock()] * (MESSAGE_BLOCKS_MAX - 1))
    assert with_feedback(full, layout, "a1") == full
    roomy = MessageContent(text="t", blocks=[DividerBlock()] * (MESSAGE_BLOCKS_MAX - 2))
    assert len(with_feedback(roomy, layout, "a1").blocks) == MESSAGE_BLOCKS_MAX
