"""lay_out: the element each question gets, how an ask splits into parts, what Slack cannot show."""

from __future__ import annotations

from typing import Any

import pytest

from bot.block_ids import BlockKind
from bot.render.layout import (
    MESSAGE_BLOCKS_MAX,
    PART_OVERHEAD_BLOCKS,
    AskLayout,
    Element,
    Unshowable,
    lay_out,
)
from provider import AskUserQuestionRequest

Question = dict[str, Any]


def request(*questions: Question) -> AskUserQuestionRequest:
    return AskUserQuestionRequest.model_validate({"questions": list(questions)})


def single(qid: str, n: int, **extra: Any) -> Question:
    return {
        "id": qid,
        "question": f"Which one for {qid}?",
        "options": [{"label": f"Option {i}"} for i in range(n)],
        **extra,
    }


def multi(qid: str, n: int, **extra: Any) -> Question:
    return single(qid, n, multi_select=True, **extra)


def text(qid: str, **extra: Any) -> Question:
    return {"id": qid, "question": f"What about {qid}?", **extra}


def elements(*questions: Question) -> list[Element]:
    return [q.element for q in lay_out(request(*questions)).questions]


def part_sizes(layout: AskLayout) -> list[int]:
    return [len(part.questions) for part in layout.parts]


def part_blocks(layout: AskLayout) -> list[int]:
    """Blocks each part's message takes by the layout's own count, overhead included."""
    return [
        PART_OVERHEAD_BLOCKS + sum(q.block_count for q in part.questions) for part in layout.parts
    ]


# --- which element each question gets ------------------------------------------------------


def test_a_lone_single_select_with_24_options_gets_buttons() -> None:
    assert elements(single("q", 24)) == [Element.BUTTONS]


def test_a_lone_single_select_with_25_options_gets_a_pick_menu() -> None:
    # 25 buttons and "Other…" would not fit one actions row of 25 elements.
    assert elements(single("q", 25)) == [Element.PICK_MENU]


def test_a_lone_single_select_with_100_options_gets_a_pick_menu() -> None:
    assert elements(single("q", 100)) == [Element.PICK_MENU]


def test_a_lone_single_select_with_one_option_gets_buttons() -> None:
    assert elements(single("q", 1)) == [Element.BUTTONS]


def test_a_batched_single_select_with_10_options_gets_radio_buttons() -> None:
    assert elements(single("q", 10), text("t")) == [Element.RADIO, Element.TEXT]


def test_a_batched_single_select_with_11_options_gets_a_select() -> None:
    assert elements(single("q", 11), text("t")) == [Element.SELECT, Element.TEXT]


def test_a_batched_single_select_with_100_options_gets_a_select() -> None:
    assert elements(single("q", 100), text("t")) == [Element.SELECT, Element.TEXT]


def test_a_lone_multi_select_with_10_options_gets_checkboxes() -> None:
    assert elements(multi("q", 10)) == [Element.CHECKBOXES]


def test_a_lone_multi_select_with_11_options_gets_a_multi_select_menu() -> None:
    assert elements(multi("q", 11)) == [Element.MULTI_SELECT]


def test_a_batched_multi_select_with_10_options_gets_checkboxes() -> None:
    assert elements(multi("q", 10), text("t")) == [Element.CHECKBOXES, Element.TEXT]


def test_a_batched_multi_select_with_11_options_gets_a_multi_select_menu() -> None:
    assert elements(multi("q", 11), text("t")) == [Element.MULTI_SELECT, Element.TEXT]


def test_a_multi_select_with_100_options_gets_a_multi_select_menu() -> None:
    assert elements(multi("q", 100)) == [Element.MULTI_SELECT]


def test_a_lone_optionless_question_gets_a_text_input() -> None:
    assert elements(text("q")) == [Element.TEXT]


def test_a_question_with_an_empty_option_list_gets_a_text_input() -> None:
    assert elements({"id": "q", "question": "Why?", "options": []}) == [Element.TEXT]


def test_an_optionless_multi_select_question_gets_a_text_input() -> None:
    assert elements({"id": "q", "question": "Why?", "multi_select": True}) == [Element.TEXT]


def test_every_shape_in_one_batch_gets_its_own_element() -> None:
    assert elements(single("a", 3), single("b", 30), multi("c", 3), multi("d", 30), text("e")) == [
        Element.RADIO,
        Element.SELECT,
        Element.CHECKBOXES,
        Element.MULTI_SELECT,
        Element.TEXT,
    ]


# --- one click, skip ------------------------------------------------------------------------


@pytest.mark.parametrize("n", [1, 24, 25, 100])
def test_a_lone_single_select_is_answered_by_one_click(n: int) -> None:
    assert lay_out(request(single("q", n))).one_click is True


@pytest.mark.parametrize(
    "questions",
    [
        pytest.param([multi("q", 3)], id="lone multi-select"),
        pytest.param([text("q")], id="lone text"),
        pytest.param([single("q", 3), single("r", 3)], id="batch of single-selects"),
    ],
)
def test_anything_but_a_lone_single_select_is_a_form(questions: list[Question]) -> None:
    assert lay_out(request(*questions)).one_click is False


@pytest.mark.parametrize(
    "question",
    [single("q", 3), single("q", 30), multi("q", 3), multi("q", 30), text("q")],
    ids=["buttons", "pick menu", "checkboxes", "multi-select", "text"],
)
def test_a_lone_question_is_not_skippable(question: Question) -> None:
    assert [q.skippable for q in lay_out(request(question)).questions] == [False]


def test_every_question_in_a_batch_is_skippable() -> None:
    layout = lay_out(request(single("a", 3), multi("b", 30), text("c")))
    assert [q.skippable for q in layout.questions] == [True, True, True]


# --- blocks per question ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("questions", "counts"),
    [
        pytest.param([text("q")], [1], id="lone text: input"),
        pytest.param([multi("q", 3)], [2], id="lone multi: input, Other"),
        pytest.param([multi("q", 3, detail="Plan")], [3], id="lone multi with detail"),
        pytest.param([single("a", 3), text("b")], [3, 2], id="batch: input, Other, Skip"),
        pytest.param(
            [single("a", 3, header="H"), text("b", detail="D")],
            [4, 3],
            id="batch with header or detail: a heading more",
        ),
    ],
)
def test_a_question_counts_its_heading_input_other_and_skip_blocks(
    questions: list[Question], counts: list[int]
) -> None:
    assert [q.block_count for q in lay_out(request(*questions)).questions] == counts


# --- splitting into parts ---------------------------------------------------------------------


def test_a_lone_question_is_one_part() -> None:
    layout = lay_out(request(single("q", 3)))
    assert part_sizes(layout) == [1]


def test_a_batch_of_16_three_block_questions_fills_exactly_one_part() -> None:
    layout = lay_out(request(*(single(f"q{i}", 3) for i in range(16))))
    assert part_sizes(layout) == [16]
    assert part_blocks(layout) == [MESSAGE_BLOCKS_MAX]


def test_a_batch_of_17_three_block_questions_spills_one_into_a_second_part() -> None:
    layout = lay_out(request(*(single(f"q{i}", 3) for i in range(17))))
    assert part_sizes(layout) == [16, 1]
    assert part_blocks(layout) == [50, 5]


def test_a_batch_of_60_three_block_questions_takes_four_parts() -> None:
    layout = lay_out(request(*(single(f"q{i}", 3) for i in range(60))))
    assert part_sizes(layout) == [16, 16, 16, 12]
    assert part_blocks(layout) == [50, 50, 50, 38]


def test_a_batch_of_24_text_questions_fills_exactly_one_part() -> None:
    layout = lay_out(request(*(text(f"q{i}") for i in range(24))))
    assert part_sizes(layout) == [24]
    assert part_blocks(layout) == [50]


def test_a_batch_of_four_block_questions_holds_12_to_a_part() -> None:
    layout = lay_out(request(*(single(f"q{i}", 3, header="H") for i in range(13))))
    assert part_sizes(layout) == [12, 1]
    assert part_blocks(layout) == [50, 6]


def mixed(n: int) -> list[Question]:
    shapes = [
        lambda i: single(f"s{i}", 4, header=f"Header {i}"),
        lambda i: multi(f"m{i}", 30, detail="A plan\nin two lines"),
        lambda i: text(f"t{i}"),
        lambda i: single(f"r{i}", 30),
        lambda i: text(f"u{i}", header="H", detail="D"),
        lambda i: multi(f"c{i}", 5),
    ]
    return [shapes[i % len(shapes)](i) for i in range(n)]


@pytest.mark.parametrize("n", [1, 2, 16, 17, 37, 60, 150])
def test_no_part_of_a_mixed_batch_exceeds_50_blocks_with_its_overhead(n: int) -> None:
    layout = lay_out(request(*mixed(n)))
    assert all(blocks <= MESSAGE_BLOCKS_MAX for blocks in part_blocks(layout))


@pytest.mark.parametrize("n", [16, 17, 60, 150])
def test_a_part_is_only_closed_when_the_next_question_would_not_fit(n: int) -> None:
    layout = lay_out(request(*mixed(n)))
    for part, following in zip(layout.parts, layout.parts[1:], strict=False):
        used = PART_OVERHEAD_BLOCKS + sum(q.block_count for q in part.questions)
        assert used + following.questions[0].block_count > MESSAGE_BLOCKS_MAX


@pytest.mark.parametrize("n", [17, 60, 150])
def test_questions_keep_request_order_across_parts(n: int) -> None:
    questions = mixed(n)
    layout = lay_out(request(*questions))
    assert [q.question.id for q in layout.questions] == [q["id"] for q in questions]
    assert [q.index for q in layout.questions] == list(range(n))
    assert [part.number for part in layout.parts] == list(range(len(layout.parts)))


def test_an_ask_may_take_20_parts() -> None:
    layout = lay_out(request(*(single(f"q{i}", 3) for i in range(320))))
    assert len(layout.parts) == 20


def test_an_ask_needing_21_parts_is_refused_with_a_message_that_says_to_split_it() -> None:
    with pytest.raises(Unshowable) as raised:
        lay_out(request(*(single(f"q{i}", 3) for i in range(321))))
    assert str(raised.value) == (
        "the 321 questions need 21 Slack messages; "
        "at most 20 are posted for one ask — split the request"
    )


def test_unshowable_is_a_value_error() -> None:
    assert issubclass(Unshowable, ValueError)


# --- what Slack cannot show -------------------------------------------------------------------


def test_a_question_id_of_255_characters_is_shown() -> None:
    qid = "q" * 255
    assert [q.question.id for q in lay_out(request(single(qid, 3))).questions] == [qid]


def test_a_question_id_of_256_characters_is_refused() -> None:
    qid = "x" * 256
    with pytest.raises(Unshowable) as raised:
        lay_out(request(text("ok"), single(qid, 3)))
    assert str(raised.value) == (
        f"question id {'x' * 40!r}… is 256 characters; Slack block ids hold at most 255"
    )


@pytest.mark.parametrize(
    "question", [single("big", 101), multi("big", 101)], ids=["single", "multi"]
)
def test_a_question_with_101_options_is_refused(question: Question) -> None:
    with pytest.raises(Unshowable) as raised:
        lay_out(request(question))
    assert str(raised.value) == "question big has 101 options; Slack menus hold at most 100"


# --- helper block ids -------------------------------------------------------------------------


def test_helper_block_ids_use_the_sq_tilde_prefix() -> None:
    layout = lay_out(request(single("a", 3), text("b")))
    assert layout.aux_prefix == "sq~"
    assert layout.aux_block_id(BlockKind.OTHER, 3) == "sq~o.3"


def test_the_helper_prefix_changes_when_a_question_id_starts_with_it() -> None:
    layout = lay_out(request(single("sq~o.0", 3), text("b")))
    assert layout.aux_prefix == "sq1~"
    assert layout.aux_block_id(BlockKind.OTHER, 0) == "sq1~o.0"


def test_the_helper_prefix_skips_every_prefix_a_question_id_takes() -> None:
    layout = lay_out(request(text("sq~a"), text("sq1~b"), text("sq2~c")))
    assert layout.aux_prefix == "sq3~"


@pytest.mark.parametrize("qid", ["sq", "sq1", "xsq~", "SQ~x", "sq-x"])
def test_ids_that_merely_resemble_the_prefix_leave_it_alone(qid: str) -> None:
    assert lay_out(request(text(qid))).aux_prefix == "sq~"


def test_no_question_id_starts_with_the_helper_prefix() -> None:
    ids = ["sq~", "sq1~", "sq~x", "sq2~y", "sq4~", "plain"]
    layout = lay_out(request(*(text(i) for i in ids)))
    assert layout.aux_prefix == "sq3~"
    assert not any(i.startswith(layout.aux_prefix) for i in ids)


def test_the_same_request_is_laid_out_the_same_way_twice() -> None:
    req = request(*mixed(40))
    assert lay_out(req) == lay_out(req)
