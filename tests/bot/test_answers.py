"""Answers read from Slack's `state.values` by block id, checked against the answer contract."""

from __future__ import annotations

import random
from typing import Any

import pytest

from bot.answers import (
    MISSING,
    MISSING_LONE,
    MISSING_LONE_TEXT,
    MISSING_TEXT,
    SKIP_AND_ANSWER,
    FormResult,
    pick,
    read_form,
    reply_text,
    typed,
)
from bot.block_ids import BlockKind
from bot.payloads import State, StateValues
from bot.render import AskLayout, lay_out
from provider import (
    AskUserQuestionAnswer,
    AskUserQuestionAnswerItem,
    AskUserQuestionItem,
    AskUserQuestionRequest,
    check_answer,
)

JSON = dict[str, Any]
Question = dict[str, Any]

TRICKY = ["Postgres (Recommended)", "a > b && c < d", "<!channel> 🚀", "L" * 200]


def request(*questions: Question) -> AskUserQuestionRequest:
    return AskUserQuestionRequest.model_validate({"questions": list(questions)})


def labelled(qid: str, labels: list[str], *, multi: bool = False) -> Question:
    return {
        "id": qid,
        "question": f"Which {qid}?",
        "options": [{"label": label} for label in labels],
        "multi_select": multi,
    }


def numbered(qid: str, n: int, *, multi: bool = False) -> Question:
    return labelled(qid, [f"{qid} {i}" for i in range(n)], multi=multi)


# The batch every shape test reads: aux prefix "sq~", question i at index i.
RADIO, SELECT, CHECKS, MULTI, TEXT = "radio", "select", "checks", "multi", "notes"
BATCH = request(
    labelled(RADIO, TRICKY),
    numbered(SELECT, 12),
    labelled(CHECKS, TRICKY, multi=True),
    numbered(MULTI, 12, multi=True),
    {"id": TEXT, "question": "Anything else?"},
)
IDS = [RADIO, SELECT, CHECKS, MULTI, TEXT]


@pytest.fixture
def batch() -> AskLayout:
    return lay_out(BATCH)


# --- state.values shaped exactly as Slack sends it ----------------------------------------------


def option(value: str) -> JSON:
    return {"text": {"type": "plain_text", "text": f"shown {value}", "emoji": True}, "value": value}


def radio(value: str | None) -> JSON:
    return {"type": "radio_buttons", "selected_option": None if value is None else option(value)}


def select(value: str | None) -> JSON:
    return {"type": "static_select", "selected_option": None if value is None else option(value)}


def checkboxes(*values: str) -> JSON:
    return {"type": "checkboxes", "selected_options": [option(v) for v in values]}


def multi_select(*values: str) -> JSON:
    return {"type": "multi_static_select", "selected_options": [option(v) for v in values]}


def text(value: str | None) -> JSON:
    return {"type": "plain_text_input", "value": value}


def untouched() -> dict[str, dict[str, JSON]]:
    """A batch form nobody touched: every element present, every value null or empty."""
    raw: dict[str, dict[str, JSON]] = {
        RADIO: {"sq_input": radio(None)},
        SELECT: {"sq_input": select(None)},
        CHECKS: {"sq_input": checkboxes()},
        MULTI: {"sq_input": multi_select()},
        TEXT: {"sq_input": text(None)},
    }
    for index in range(4):
        raw[f"sq~o.{index}"] = {"sq_input": text(None)}
    for index in range(5):
        raw[f"sq~s.{index}"] = {"sq_input": checkboxes()}
    return raw


def answered() -> dict[str, dict[str, JSON]]:
    """A batch form with every question answered by its own element."""
    raw = untouched()
    raw[RADIO] = {"sq_input": radio("0")}
    raw[SELECT] = {"sq_input": select("11")}
    raw[CHECKS] = {"sq_input": checkboxes("1", "3")}
    raw[MULTI] = {"sq_input": multi_select("2")}
    raw[TEXT] = {"sq_input": text("  Ship it\nthen tell me  ")}
    return raw


def state(raw: dict[str, dict[str, JSON]]) -> StateValues:
    """`state.values` parsed the way the listeners parse Slack's payload."""
    return State.model_validate({"values": raw}).values


def read(layout: AskLayout, raw: dict[str, dict[str, JSON]], part: int = 0) -> FormResult:
    return read_form(layout, part, state(raw))


def answer_of(result: FormResult, qid: str) -> AskUserQuestionAnswerItem:
    assert result.errors == {}
    [item] = [a for a in result.answers if a.id == qid]
    return item


def error_of(layout: AskLayout, raw: dict[str, dict[str, JSON]], qid: str) -> str | None:
    return read(layout, raw).errors.get(qid)


# --- each shape -------------------------------------------------------------------------------


def test_a_fully_answered_batch_gives_one_answer_per_question_in_request_order(
    batch: AskLayout,
) -> None:
    result = read(batch, answered())
    assert result == FormResult(
        answers=[
            AskUserQuestionAnswerItem(id=RADIO, selected=["Postgres (Recommended)"]),
            AskUserQuestionAnswerItem(id=SELECT, selected=["select 11"]),
            AskUserQuestionAnswerItem(id=CHECKS, selected=["a > b && c < d", "L" * 200]),
            AskUserQuestionAnswerItem(id=MULTI, selected=["multi 2"]),
            AskUserQuestionAnswerItem(id=TEXT, custom="Ship it\nthen tell me"),
        ]
    )


def test_a_radio_pick_answers_with_its_label_exactly(batch: AskLayout) -> None:
    raw = answered()
    raw[RADIO] = {"sq_input": radio("2")}
    assert answer_of(read(batch, raw), RADIO).selected == ["<!channel> 🚀"]


def test_a_select_pick_answers_with_its_label(batch: AskLayout) -> None:
    assert answer_of(read(batch, answered()), SELECT) == AskUserQuestionAnswerItem(
        id=SELECT, selected=["select 11"]
    )


def test_checkboxes_answer_with_their_labels_in_offer_order(batch: AskLayout) -> None:
    raw = answered()
    raw[CHECKS] = {"sq_input": checkboxes("3", "0", "2")}
    assert answer_of(read(batch, raw), CHECKS).selected == [TRICKY[0], TRICKY[2], TRICKY[3]]


def test_a_multi_select_answers_in_offer_order_whatever_order_the_state_lists(
    batch: AskLayout,
) -> None:
    raw = answered()
    raw[MULTI] = {"sq_input": multi_select("11", "0", "7", "3")}
    assert answer_of(read(batch, raw), MULTI).selected == [
        "multi 0",
        "multi 3",
        "multi 7",
        "multi 11",
    ]


def test_a_value_listed_twice_counts_once(batch: AskLayout) -> None:
    raw = answered()
    raw[MULTI] = {"sq_input": multi_select("4", "4")}
    assert answer_of(read(batch, raw), MULTI).selected == ["multi 4"]


def test_a_text_answer_is_trimmed_and_keeps_inner_newlines(batch: AskLayout) -> None:
    assert answer_of(read(batch, answered()), TEXT) == AskUserQuestionAnswerItem(
        id=TEXT, custom="Ship it\nthen tell me"
    )


# --- Other ------------------------------------------------------------------------------------


def test_other_text_overrides_a_radio_pick(batch: AskLayout) -> None:
    raw = answered()
    raw["sq~o.0"] = {"sq_input": text(" MySQL, honestly ")}
    assert answer_of(read(batch, raw), RADIO) == AskUserQuestionAnswerItem(
        id=RADIO, selected=[], custom="MySQL, honestly"
    )


def test_other_text_overrides_a_select_pick(batch: AskLayout) -> None:
    raw = answered()
    raw["sq~o.1"] = {"sq_input": text("none of these")}
    assert answer_of(read(batch, raw), SELECT) == AskUserQuestionAnswerItem(
        id=SELECT, custom="none of these"
    )


def test_other_text_alone_answers_a_single_select(batch: AskLayout) -> None:
    raw = answered()
    raw[RADIO] = {"sq_input": radio(None)}
    raw["sq~o.0"] = {"sq_input": text("my own")}
    assert answer_of(read(batch, raw), RADIO) == AskUserQuestionAnswerItem(
        id=RADIO, custom="my own"
    )


def test_other_text_accompanies_checkboxes(batch: AskLayout) -> None:
    raw = answered()
    raw["sq~o.2"] = {"sq_input": text("and also this")}
    assert answer_of(read(batch, raw), CHECKS) == AskUserQuestionAnswerItem(
        id=CHECKS, selected=[TRICKY[1], TRICKY[3]], custom="and also this"
    )


def test_other_text_accompanies_a_multi_select(batch: AskLayout) -> None:
    raw = answered()
    raw["sq~o.3"] = {"sq_input": text("more")}
    assert answer_of(read(batch, raw), MULTI) == AskUserQuestionAnswerItem(
        id=MULTI, selected=["multi 2"], custom="more"
    )


def test_other_text_alone_answers_a_multi_select(batch: AskLayout) -> None:
    raw = answered()
    raw[MULTI] = {"sq_input": multi_select()}
    raw["sq~o.3"] = {"sq_input": text("just this")}
    assert answer_of(read(batch, raw), MULTI) == AskUserQuestionAnswerItem(
        id=MULTI, custom="just this"
    )


def test_whitespace_under_other_is_no_answer(batch: AskLayout) -> None:
    raw = answered()
    raw[RADIO] = {"sq_input": radio(None)}
    raw["sq~o.0"] = {"sq_input": text(" \n\t ")}
    assert error_of(batch, raw, RADIO) == MISSING


def test_whitespace_under_other_beside_a_pick_leaves_the_pick(batch: AskLayout) -> None:
    raw = answered()
    raw["sq~o.0"] = {"sq_input": text("   ")}
    assert answer_of(read(batch, raw), RADIO) == AskUserQuestionAnswerItem(
        id=RADIO, selected=[TRICKY[0]]
    )


# --- skip -------------------------------------------------------------------------------------


@pytest.mark.parametrize("index", range(5))
def test_skip_answers_with_nothing_selected_and_no_custom(batch: AskLayout, index: int) -> None:
    raw = answered()
    raw[f"sq~s.{index}"] = {"sq_input": checkboxes("skip")}
    raw[IDS[index]] = untouched()[IDS[index]]
    assert answer_of(read(batch, raw), IDS[index]) == AskUserQuestionAnswerItem(id=IDS[index])


@pytest.mark.parametrize("index", range(5))
def test_skip_beside_an_answer_is_an_error_keyed_by_the_question_id(
    batch: AskLayout, index: int
) -> None:
    raw = answered()
    raw[f"sq~s.{index}"] = {"sq_input": checkboxes("skip")}
    assert read(batch, raw) == FormResult(errors={IDS[index]: SKIP_AND_ANSWER})


def test_skip_beside_other_text_is_an_error(batch: AskLayout) -> None:
    raw = answered()
    raw[RADIO] = {"sq_input": radio(None)}
    raw["sq~o.0"] = {"sq_input": text("mine")}
    raw["sq~s.0"] = {"sq_input": checkboxes("skip")}
    assert read(batch, raw).errors == {RADIO: SKIP_AND_ANSWER}


def test_skip_means_nothing_for_a_lone_question() -> None:
    layout = lay_out(request(numbered("q", 3, multi=True)))
    raw = {"q": {"sq_input": checkboxes()}, "sq~s.0": {"sq_input": checkboxes("skip")}}
    assert read(layout, raw) == FormResult(errors={"q": MISSING_LONE})


# --- missing answers --------------------------------------------------------------------------


def test_an_untouched_batch_has_an_error_for_every_question_and_no_answers(
    batch: AskLayout,
) -> None:
    assert read(batch, untouched()) == FormResult(
        errors={
            RADIO: MISSING,
            SELECT: MISSING,
            CHECKS: MISSING,
            MULTI: MISSING,
            TEXT: MISSING_TEXT,
        }
    )


def test_the_missing_answer_messages_say_what_to_do() -> None:
    assert (MISSING, MISSING_TEXT, MISSING_LONE, MISSING_LONE_TEXT, SKIP_AND_ANSWER) == (
        "Choose an answer, type one under Other, or skip this question.",
        "Type an answer, or skip this question.",
        "Choose an answer or type your own.",
        "Type an answer.",
        "You chose Skip and also answered; keep one.",
    )


def test_state_without_any_block_is_missing_every_answer(batch: AskLayout) -> None:
    assert read(batch, {}).errors == read(batch, untouched()).errors


@pytest.mark.parametrize(
    "element",
    [
        {"type": "radio_buttons"},
        {"type": "static_select", "selected_option": None},
        {"type": "checkboxes"},
        {"type": "multi_static_select", "selected_options": []},
    ],
    ids=["radio absent", "select null", "checkboxes absent", "multi empty"],
)
def test_a_null_or_absent_selection_is_no_answer(batch: AskLayout, element: JSON) -> None:
    raw = answered()
    raw[SELECT] = {"sq_input": element}
    assert read(batch, raw) == FormResult(errors={SELECT: MISSING})


@pytest.mark.parametrize("value", [None, "", "   "])
def test_an_empty_text_input_is_no_answer(batch: AskLayout, value: str | None) -> None:
    raw = answered()
    raw[TEXT] = {"sq_input": text(value)}
    assert read(batch, raw) == FormResult(errors={TEXT: MISSING_TEXT})


def test_a_text_input_with_no_value_key_is_no_answer(batch: AskLayout) -> None:
    raw = answered()
    raw[TEXT] = {"sq_input": {"type": "plain_text_input"}}
    assert read(batch, raw) == FormResult(errors={TEXT: MISSING_TEXT})


def test_a_lone_option_question_missing_its_answer_says_choose_or_type() -> None:
    layout = lay_out(request(numbered("q", 3, multi=True)))
    assert read(layout, {}) == FormResult(errors={"q": MISSING_LONE})


def test_a_lone_text_question_missing_its_answer_says_type() -> None:
    layout = lay_out(request({"id": "q", "question": "Why?"}))
    assert read(layout, {"q": {"sq_input": text(None)}}) == FormResult(
        errors={"q": MISSING_LONE_TEXT}
    )


def test_a_lone_text_question_is_answered_by_its_input() -> None:
    layout = lay_out(request({"id": "q", "question": "Why?"}))
    assert read(layout, {"q": {"sq_input": text(" because ")}}) == FormResult(
        answers=[AskUserQuestionAnswerItem(id="q", custom="because")]
    )


# --- values that are not ours -----------------------------------------------------------------


@pytest.mark.parametrize("value", ["12", "99", "-1", "1.0", "x", "skip", "", " 1", "a1b2/1"])
def test_a_value_that_is_not_an_option_index_is_ignored(batch: AskLayout, value: str) -> None:
    raw = answered()
    raw[SELECT] = {"sq_input": select(value)}
    assert read(batch, raw) == FormResult(errors={SELECT: MISSING})


def test_values_that_are_not_ours_are_dropped_beside_ones_that_are(batch: AskLayout) -> None:
    raw = answered()
    raw[MULTI] = {"sq_input": multi_select("x", "5", "-2", "12", "1")}
    assert answer_of(read(batch, raw), MULTI).selected == ["multi 1", "multi 5"]


def test_a_skip_box_with_another_value_is_not_a_skip(batch: AskLayout) -> None:
    raw = answered()
    raw["sq~s.0"] = {"sq_input": checkboxes("0", "Skip", "yes")}
    assert answer_of(read(batch, raw), RADIO).selected == [TRICKY[0]]


def test_answers_are_read_by_block_id_whatever_order_the_state_lists_blocks(
    batch: AskLayout,
) -> None:
    raw = answered()
    reordered = dict(reversed(list(raw.items())))
    assert read(batch, reordered) == read(batch, raw)


def test_blocks_the_layout_does_not_know_are_ignored(batch: AskLayout) -> None:
    raw = answered()
    raw["stranger"] = {"sq_input": radio("1")}
    raw["sq~o.99"] = {"sq_input": text("who?")}
    assert read(batch, raw) == read(batch, answered())


def test_a_superscript_digit_value_is_ignored(batch: AskLayout) -> None:
    raw = answered()
    raw[SELECT] = {"sq_input": select("²")}
    assert read(batch, raw) == FormResult(errors={SELECT: MISSING})


def test_a_non_ascii_digit_value_is_ignored(batch: AskLayout) -> None:
    raw = answered()
    raw[SELECT] = {"sq_input": select("٣")}
    assert read(batch, raw) == FormResult(errors={SELECT: MISSING})


# --- parts ------------------------------------------------------------------------------------


def test_a_part_reads_only_its_own_questions() -> None:
    layout = lay_out(request(*(numbered(f"q{i}", 3) for i in range(17))))
    raw = {"q16": {"sq_input": radio("2")}, "q0": {"sq_input": radio("0")}}
    assert read(layout, raw, part=1) == FormResult(
        answers=[AskUserQuestionAnswerItem(id="q16", selected=["q16 2"])]
    )
    assert set(read(layout, raw, part=0).errors) == {f"q{i}" for i in range(1, 16)}


def test_helper_blocks_follow_the_layout_prefix() -> None:
    layout = lay_out(request(numbered("sq~x", 2), {"id": "t", "question": "Why?"}))
    raw = {
        "sq~x": {"sq_input": radio(None)},
        "sq1~o.0": {"sq_input": text("typed")},
        "sq1~s.1": {"sq_input": checkboxes("skip")},
    }
    assert read(layout, raw) == FormResult(
        answers=[
            AskUserQuestionAnswerItem(id="sq~x", custom="typed"),
            AskUserQuestionAnswerItem(id="t"),
        ]
    )


# --- every answer passes the contract ---------------------------------------------------------


def random_question(rnd: random.Random, qid: str) -> Question:
    n = rnd.choice([0, 0, 1, 2, 5, 10, 11, 30])
    labels = rnd.sample([*TRICKY, *(f"Option {i}" for i in range(40))], n)
    return {
        "id": qid,
        "question": f"Question {qid}?",
        "options": [{"label": label} for label in labels] if n or rnd.random() < 0.5 else None,
        "multi_select": rnd.random() < 0.5,
    }


def random_choice(rnd: random.Random, n: int, multi: bool) -> JSON | None:
    junk = ["x", "-1", "99", "skip", "1.5", str(n)]
    values = [str(rnd.randrange(n)) for _ in range(rnd.randint(0, 4))] if n else []
    values += rnd.sample(junk, rnd.randint(0, 2))
    rnd.shuffle(values)
    kind = rnd.random()
    if kind < 0.15:
        return None
    if multi:
        maker = checkboxes if n <= 10 else multi_select
        return maker(*values)
    maker_one = radio if n <= 10 else select
    return maker_one(values[0] if values and kind < 0.8 else None)


def random_text(rnd: random.Random) -> JSON | None:
    return rnd.choice([None, text(None), text(""), text("  "), text(" Mine\n too "), text("x")])


def random_state(rnd: random.Random, layout: AskLayout) -> dict[str, dict[str, JSON]]:
    raw: dict[str, dict[str, JSON]] = {}
    for q in layout.questions:
        question = q.question
        n = len(question.labels)
        element = random_choice(rnd, n, question.multi_select) if n else random_text(rnd)
        if element is not None:
            raw[question.id] = {"sq_input": element}
        other = random_text(rnd)
        if n and other is not None:
            raw[layout.aux_block_id(BlockKind.OTHER, q.index)] = {"sq_input": other}
        if rnd.random() < 0.3:
            raw[layout.aux_block_id(BlockKind.SKIP, q.index)] = {"sq_input": checkboxes("skip")}
    return raw


def test_every_answer_read_from_any_state_passes_the_answer_contract() -> None:
    rnd = random.Random(2024)
    checked = 0
    for trial in range(600):
        req = request(*(random_question(rnd, f"q{trial}.{i}") for i in range(rnd.randint(1, 5))))
        layout = lay_out(req)
        if layout.one_click:
            continue
        for _ in range(4):
            result = read(layout, random_state(rnd, layout))
            assert set(result.errors) <= {q.id for q in req.questions}
            assert set(result.errors.values()) <= {
                MISSING,
                MISSING_TEXT,
                MISSING_LONE,
                MISSING_LONE_TEXT,
                SKIP_AND_ANSWER,
            }
            if result.errors:
                assert result.answers == []
                continue
            check_answer(req, AskUserQuestionAnswer(answers=result.answers))
            checked += 1
    assert checked > 300


# --- one-click, typed and thread replies ------------------------------------------------------


@pytest.mark.parametrize("index", range(len(TRICKY)))
def test_a_pick_answers_with_the_label_at_its_index_exactly(index: int) -> None:
    question = AskUserQuestionItem.model_validate(labelled("q", TRICKY))
    assert pick(question, index) == AskUserQuestionAnswerItem(id="q", selected=[TRICKY[index]])


@pytest.mark.parametrize("index", [-1, 4, 100])
def test_a_pick_of_an_option_that_does_not_exist_is_refused(index: int) -> None:
    question = AskUserQuestionItem.model_validate(labelled("q", TRICKY))
    with pytest.raises(ValueError, match=rf"^question q has no option {index}$"):
        pick(question, index)


def test_a_typed_answer_is_trimmed_and_keeps_inner_newlines() -> None:
    question = AskUserQuestionItem(id="q", question="Why?")
    assert typed(question, "\n  first\n\nsecond  \n") == AskUserQuestionAnswerItem(
        id="q", custom="first\n\nsecond"
    )


@pytest.mark.parametrize("blank", ["", "   ", "\n\t"])
def test_a_blank_typed_answer_is_no_answer(blank: str) -> None:
    assert typed(AskUserQuestionItem(id="q", question="Why?"), blank) is None


def test_a_typed_answer_to_a_single_select_is_custom_only() -> None:
    question = AskUserQuestionItem.model_validate(labelled("q", TRICKY))
    item = typed(question, "neither")
    assert item == AskUserQuestionAnswerItem(id="q", selected=[], custom="neither")
    check_answer(request(labelled("q", TRICKY)), AskUserQuestionAnswer(answers=[item]))


def test_a_thread_reply_is_unescaped_and_trimmed() -> None:
    assert reply_text("  a &lt;b&gt; &amp;amp; c \n") == "a <b> &amp; c"
