"""The team view as Block Kit: what waits, what was decided, by whom, within Slack's limits."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import pytest

from bot.outcomes import Verdict
from bot.render.decided import when
from bot.render.team_view import command_message, home_view, team_blocks
from bot.store import Approval, AskRecord, AskState
from provider import AskUserQuestionAnswer, AskUserQuestionItem
from slack_emulator import check_blocks, check_view

ALICE = "U0ALICE001"
BOB = "U0BOB00002"
T0 = 1_700_000_000.0
LINK = "https://team.slack.com/archives/C1/p1700000000000100"
DB = {"id": "db", "question": "Which database?", "options": [{"label": "Postgres"}]}
PLAN = {
    "id": "plan",
    "question": "May I carry out this plan?",
    "detail": "# Plan\n\n1. Copy the table",
    "options": [{"label": "Approve"}, {"label": "Revise it"}],
    "intent": {"kind": "plan-review", "approve": "Approve"},
}


def ask(
    n: int = 0,
    *questions: Mapping[str, object],
    at: float | None = None,
    agent: str | None = "Planner",
    **fields: Any,
) -> AskRecord:
    """A stored ask `n`, asked at `T0 + 60 n` (or `at`), posted and waiting unless `fields` say
    more."""
    items = [AskUserQuestionItem.model_validate(q) for q in questions or (DB,)]
    fields.setdefault("message_ts", ["1700000000.000100"])
    return AskRecord(
        id=f"ask{n}",
        questions=items,
        created_at=at if at is not None else T0 + 60 * n,
        agent_name=agent,
        **fields,
    )


def answered(
    n: int,
    *questions: Mapping[str, object],
    answers: Sequence[Mapping[str, object]],
    by: str = ALICE,
    at: float | None = None,
    **fields: Any,
) -> AskRecord:
    """Ask `n`, answered by `by` 30 s after it was asked (or at `at`)."""
    record = ask(n, *questions, **fields)
    return record.model_copy(
        update={
            "state": AskState.ANSWERED,
            "verdict": Verdict.ANSWERED,
            "answer": AskUserQuestionAnswer.model_validate({"answers": answers}),
            "decided_by": by,
            "decided_at": at if at is not None else record.created_at + 30,
        }
    )


def ended(
    n: int, verdict: Verdict, *, by: str | None = None, reason: str | None = None
) -> AskRecord:
    """Ask `n`, ended without an answer 30 s after it was asked."""
    record = ask(n)
    return record.model_copy(
        update={
            "state": AskState.FAILED,
            "verdict": verdict,
            "decided_by": by,
            "decided_at": record.created_at + 30,
            "reason": reason,
        }
    )


def texts(blocks: list[dict[str, Any]]) -> list[str]:
    """Each block's text as a person reads it."""
    shown = []
    for block in blocks:
        if block["type"] in ("header", "section"):
            shown.append(block["text"]["text"])
        elif block["type"] == "context":
            shown.append(block["elements"][0]["text"])
        else:
            shown.append(f"<{block['type']}>")
    return shown


def listed(records: list[AskRecord], links: dict[str, str] | None = None) -> list[str]:
    """The `/agent-questions` answer, as texts."""
    return texts(command_message(records, links or {}).blocks_json())


def decision(record: AskRecord, links: dict[str, str] | None = None) -> str:
    """The one decision the list shows for `record`."""
    return listed([record], links)[4]


# what a decision says ------------------------------------------------------------------


def test_an_answer_reads_the_question_the_chosen_label_who_when_and_the_link() -> None:
    record = answered(0, answers=[{"id": "db", "selected": ["Postgres"]}])
    assert decision(record, {"ask0": LINK}) == (
        "*Which database?* → *Postgres*\n"
        f":white_check_mark: Answered by <@{ALICE}>\n"
        f"{when(T0 + 30)} · from Planner · <{LINK}|View in Slack>"
    )


def test_several_chosen_labels_and_typed_text_read_on_one_line() -> None:
    question = {**DB, "options": [{"label": "Postgres"}, {"label": "SQLite"}], "multiSelect": True}
    record = answered(
        0,
        question,
        answers=[{"id": "db", "selected": ["Postgres", "SQLite"], "custom": "both,\nfor now"}],
    )
    assert decision(record).split("\n")[0] == (
        "*Which database?* → *Postgres*, *SQLite*, “both, for now”"
    )


def test_a_skipped_question_reads_skipped() -> None:
    record = answered(0, answers=[{"id": "db"}])
    assert decision(record).split("\n")[0] == "*Which database?* → _skipped_"


def test_an_ask_of_five_questions_shows_three_and_counts_the_rest() -> None:
    questions = [{"id": f"q{i}", "question": f"Question {i}?"} for i in range(5)]
    record = answered(0, *questions, answers=[{"id": f"q{i}", "custom": f"a{i}"} for i in range(5)])
    assert decision(record).split("\n")[:4] == [
        "*Question 0?* → “a0”",
        "*Question 1?* → “a1”",
        "*Question 2?* → “a2”",
        "_…and 2 more questions_",
    ]


@pytest.mark.parametrize(
    ("verdict", "by", "reason", "outcome"),
    [
        (
            Verdict.WITHDRAWN,
            None,
            "plan changed",
            ":heavy_minus_sign: Withdrawn, nobody answered: plan changed",
        ),
        (
            Verdict.WITHDRAWN,
            None,
            None,
            ":heavy_minus_sign: Withdrawn, nobody answered: the agent no longer needed an answer",
        ),
        (Verdict.CLOSED, BOB, None, f":x: Dismissed: <@{BOB}> closed the form"),
        (
            Verdict.CANCELLED,
            BOB,
            None,
            f":speech_balloon: Discussed: <@{BOB}> chose to talk it over in the thread",
        ),
        (
            Verdict.EXPIRED,
            None,
            "no reviewer in 1 day",
            ":alarm_clock: Expired, nobody answered: no reviewer in 1 day",
        ),
        (
            Verdict.FAILED,
            None,
            "Slack refused chat.postMessage: not_in_channel",
            ":warning: Failed: Slack refused chat.postMessage: not_in_channel",
        ),
    ],
)
def test_an_ask_that_ended_without_an_answer_says_how_and_shows_no_answer(
    verdict: Verdict, by: str | None, reason: str | None, outcome: str
) -> None:
    assert decision(ended(0, verdict, by=by, reason=reason)) == (
        f"*Which database?*\n{outcome}\n{when(T0 + 30)} · from Planner"
    )


def test_a_waiting_ask_reads_its_questions_agent_and_when_it_was_asked() -> None:
    record = ask(0, DB, {"id": "name", "question": "Name the service"}, agent=None, agent_id="a-7")
    assert listed([record], {"ask0": LINK})[1] == (
        ":hourglass_flowing_sand: *Which database?*\n"
        "*Name the service*\n"
        f"asked {when(T0)} · from `a-7` · <{LINK}|View in Slack>"
    )


def test_an_ask_not_in_slack_yet_reads_queued_to_be_posted() -> None:
    assert listed([ask(0, message_ts=[])])[1] == (
        f":hourglass_flowing_sand: *Which database?*\n"
        f"asked {when(T0)}, queued to be posted · from Planner"
    )


def test_an_ask_without_a_link_is_shown_without_one() -> None:
    assert listed([ask(0)], {"other": LINK})[1] == (
        f":hourglass_flowing_sand: *Which database?*\nasked {when(T0)} · from Planner"
    )


def test_a_decider_that_is_not_a_slack_user_id_is_not_mentioned() -> None:
    record = answered(0, answers=[{"id": "db", "selected": ["Postgres"]}], by="<!channel>")
    assert decision(record).split("\n")[1] == ":white_check_mark: Answered by someone"


# plan reviews --------------------------------------------------------------------------


def test_an_approved_plan_names_everyone_who_approved_it() -> None:
    record = answered(
        0,
        PLAN,
        answers=[{"id": "plan", "selected": ["Approve"]}],
        by=BOB,
        approvals=[Approval(by=ALICE, at=T0 + 10), Approval(by=BOB, at=T0 + 30)],
    )
    assert decision(record) == (
        ":clipboard: Plan review: *May I carry out this plan?*\n"
        f":white_check_mark: *Approved* by <@{ALICE}>, <@{BOB}>\n"
        f"{when(T0 + 30)} · from Planner"
    )


def test_a_declined_plan_names_who_declined_with_what_and_the_approvals_before() -> None:
    record = answered(
        0,
        PLAN,
        answers=[{"id": "plan", "selected": ["Revise it"]}],
        by=BOB,
        approvals=[Approval(by=ALICE, at=T0 + 10)],
    )
    assert decision(record).split("\n")[1:3] == [
        f":no_entry: *Declined* by <@{BOB}>: *Revise it*",
        f"Approved before that by <@{ALICE}>",
    ]


def test_requested_changes_are_quoted_with_who_asked_for_them() -> None:
    record = answered(
        0, PLAN, answers=[{"id": "plan", "custom": "Keep the old table\nfor a week"}], by=BOB
    )
    assert decision(record).split("\n")[1:3] == [
        f":memo: *Changes requested* by <@{BOB}>",
        "> Keep the old table for a week",
    ]


def test_a_waiting_revised_plan_shows_its_revision_and_the_approvals_so_far() -> None:
    record = ask(0, PLAN, revision=2, approvals=[Approval(by=ALICE, at=T0 + 10)])
    assert listed([record])[1] == (
        ":clipboard: Plan review (revision 2): *May I carry out this plan?*\n"
        f"Approved so far by <@{ALICE}>\n"
        f"asked {when(T0)} · from Planner"
    )


def test_a_plan_review_moved_to_a_discussion_reads_discussed() -> None:
    record = ended(0, Verdict.CANCELLED, by=BOB).model_copy(
        update={"questions": [AskUserQuestionItem.model_validate(PLAN)]}
    )
    assert decision(record).split("\n")[1] == (
        f":speech_balloon: Discussed: <@{BOB}> chose to talk it over in the thread"
    )


# escaping ------------------------------------------------------------------------------


def test_every_piece_of_agent_text_is_escaped() -> None:
    loud = "<!channel> & <@U0BOB00002>"
    question = {"id": "q", "question": f"Ask {loud}?", "options": [{"label": f"Yes {loud}"}]}
    records = [
        answered(
            0,
            question,
            answers=[{"id": "q", "selected": [f"Yes {loud}"], "custom": f"and {loud}"}],
            agent=f"bot {loud}",
        ),
        ended(1, Verdict.WITHDRAWN, reason=f"because {loud}"),
        ask(2, question, agent=f"bot {loud}"),
    ]
    shown = "\n".join(listed(records) + texts(home_view(records, {}).to_dict()["blocks"]))
    safe = "&lt;!channel&gt; &amp; &lt;@U0BOB00002&gt;"
    assert shown.count(safe) == 2 * 7  # 4 in the answer, 1 in the withdrawal, 2 waiting
    assert "<!channel>" not in shown
    assert "<@U0BOB00002>" not in shown


# order, empty states and limits --------------------------------------------------------


def test_waiting_asks_are_newest_asked_first_and_decisions_newest_decided_first() -> None:
    records = [
        ask(3),
        answered(2, answers=[{"id": "db"}], at=T0 + 1000),
        ask(1),
        answered(0, answers=[{"id": "db"}], at=T0 + 2000),
    ]
    shown = [(line.split("\n")[-1]) for line in listed(records)]
    assert shown == [
        "Waiting for an answer",
        f"asked {when(T0 + 180)} · from Planner",
        f"asked {when(T0 + 60)} · from Planner",
        "<divider>",
        "Recent decisions",
        f"{when(T0 + 2000)} · from Planner",
        f"{when(T0 + 1000)} · from Planner",
    ]


def test_with_no_asks_both_sections_say_so() -> None:
    assert listed([]) == [
        "Waiting for an answer",
        ":white_check_mark: Nothing is waiting for an answer right now.",
        "<divider>",
        "Recent decisions",
        "_No decisions yet._ When someone answers an agent's question, it shows up here.",
    ]


def test_when_older_asks_exist_the_decisions_end_by_saying_so() -> None:
    blocks = command_message([ask(0)], {}, older=True).blocks_json()
    assert texts(blocks)[3:] == [
        "Recent decisions",
        "_No decisions among the newest asks._",
        "Older decisions are not listed.",
    ]


def test_the_command_notification_text_counts_both_lists() -> None:
    records = [ask(2), ask(1), answered(0, answers=[{"id": "db"}])]
    assert command_message(records, {}).text == (
        "Agent questions: 2 waiting for an answer, 1 recent decision"
    )


def history(pending: int, settled: int) -> list[AskRecord]:
    """`settled` answered asks, then `pending` waiting ones, newest first."""
    records = [answered(n, answers=[{"id": "db", "custom": f"a{n}"}]) for n in range(settled)]
    records += [ask(settled + n) for n in range(pending)]
    return records[::-1]


def test_a_long_history_is_cut_to_fifty_blocks_ending_with_how_many_more() -> None:
    blocks = command_message(history(pending=3, settled=80), {}).blocks_json()
    shown = texts(blocks)
    assert len(blocks) == 50
    assert shown[4:6] == ["<divider>", "Recent decisions"]
    assert shown[6].startswith("*Which database?* → “a79”")
    assert shown[-2].startswith("*Which database?* → “a37”")
    assert shown[-1] == "…and 37 more decisions. The app's Home tab shows a longer list."


def test_when_both_lists_are_long_the_waiting_asks_get_half_the_room() -> None:
    blocks = command_message(history(pending=40, settled=40), {}, older=True).blocks_json()
    shown = texts(blocks)
    assert len(blocks) == 50
    assert (
        shown[23] == "…and 18 more waiting for an answer. The app's Home tab shows a longer list."
    )
    assert shown[-1] == (
        "…and 17 more decisions, and older ones. The app's Home tab shows a longer list."
    )


def test_the_home_tab_holds_at_most_a_hundred_blocks() -> None:
    view = home_view(history(pending=10, settled=150), {}).to_dict()
    shown = texts(view["blocks"])
    assert (view["type"], len(view["blocks"])) == ("home", 100)
    assert shown[:2] == [
        "Agent questions",
        "What your agents asked people in Slack, and who decided. Newest first; "
        "`/agent-questions` shows the same list anywhere.",
    ]
    assert shown[-1] == "…and 66 more decisions."


def test_the_longest_asks_still_fit_slacks_limits() -> None:
    labels = [f"{'option ' * 12}{i}" for i in range(100)]
    question = {
        "id": "q",
        "question": "& " * 2000,
        "options": [{"label": label} for label in labels],
        "multiSelect": True,
    }
    questions = [{**question, "id": f"q{i}"} for i in range(10)]
    answers = [{"id": f"q{i}", "selected": labels, "custom": "<" * 5000} for i in range(10)]
    approvals = [Approval(by=ALICE, at=T0) for _ in range(30)]
    records = [
        answered(n, *questions, answers=answers, agent="&" * 500, reason=">" * 5000)
        for n in range(60)
    ] + [ask(100 + n, PLAN, agent="&" * 500, approvals=approvals) for n in range(60)]
    links = {r.id: f"{LINK}?thread_ts=1.2&cid=C1|x>" for r in records}
    message = command_message(records, links).blocks_json()
    view = home_view(records, links).to_dict()
    assert check_blocks(message, surface="message") == []
    assert check_view(view) == []


def test_fewer_than_seven_blocks_cannot_hold_the_view() -> None:
    with pytest.raises(ValueError, match="at least 7 blocks, not 6"):
        team_blocks([], {}, max_blocks=6)
