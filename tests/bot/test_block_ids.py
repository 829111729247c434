"""The ids our Block Kit carries: Ref values, action ids and modal metadata."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from bot.block_ids import (
    PICK_PATTERN,
    SKIP_VALUE,
    Action,
    AskRef,
    BlockKind,
    Callback,
    OptionRef,
    PageRef,
    PartRef,
    QuestionRef,
    Ref,
    ViewMeta,
)

ASK = "a1b2c3d4e5f60718"


# --- Ref --------------------------------------------------------------------------------------


def test_a_ref_is_encoded_as_ask_slash_number() -> None:
    assert Ref(ASK, 7).encode() == f"{ASK}/7"


@pytest.mark.parametrize(
    "ref",
    [Ref(ASK, 0), Ref(ASK, 99), Ref("a/b/c", 3), Ref("ask with spaces 🚀", 12), Ref("x", 10**6)],
)
def test_a_ref_round_trips_through_its_value(ref: Ref) -> None:
    assert Ref.decode(ref.encode()) == ref


def test_a_value_is_split_at_its_last_slash() -> None:
    assert Ref.decode("a/b/12") == Ref("a/b", 12)


@pytest.mark.parametrize(
    "value",
    ["", "7", "/7", "ask/", "ask/x", "ask/-1", "ask/1.5", "ask/ 1", "ask/1 ", "ask/+1"],
)
def test_a_value_we_did_not_write_is_refused(value: str) -> None:
    with pytest.raises(ValueError, match="not a slack-questions value"):
        Ref.decode(value)


def test_a_superscript_number_is_refused_with_a_value_error() -> None:
    # int() raises, not our own guard, but it is still a ValueError naming the value.
    with pytest.raises(ValueError, match="²"):
        Ref.decode("ask/²")


@pytest.mark.parametrize("value", ["ask/٣", "ask/03"])
def test_a_number_encode_never_writes_is_refused(value: str) -> None:
    with pytest.raises(ValueError, match="not a slack-questions value"):
        Ref.decode(value)


# --- action and callback ids ------------------------------------------------------------------


@pytest.mark.parametrize("action_id", ["sq_pick", "sq_pick.0", "sq_pick.24"])
def test_the_pick_pattern_matches_pick_buttons_and_the_pick_menu(action_id: str) -> None:
    assert PICK_PATTERN.match(action_id)


@pytest.mark.parametrize(
    "action_id", ["sq_pick.", "sq_pick.x", "sq_picks", "sq_other", "x.sq_pick"]
)
def test_the_pick_pattern_matches_nothing_else(action_id: str) -> None:
    assert PICK_PATTERN.match(action_id) is None


def test_action_and_callback_ids_are_distinct_and_prefixed() -> None:
    actions = [a.value for a in Action]
    assert len(set(actions)) == len(actions)
    assert all(a.startswith("sq_") for a in [*actions, *(c.value for c in Callback)])
    assert SKIP_VALUE == "skip"


# --- ViewMeta ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "meta",
    [
        ViewMeta(ask=ASK),
        ViewMeta(ask=ASK, part=3, channel="C0QUESTIONS"),
        ViewMeta(ask=ASK, question=0),
        ViewMeta(ask='a/b "quoted" 🚀', part=0, question=2, channel="C1"),
    ],
)
def test_view_meta_round_trips_through_json(meta: ViewMeta) -> None:
    assert ViewMeta.model_validate_json(meta.model_dump_json(exclude_none=True)) == meta
    assert ViewMeta.model_validate_json(meta.model_dump_json()) == meta


def test_view_meta_json_leaves_absent_fields_out() -> None:
    meta = ViewMeta(ask=ASK, part=1, channel="C1")
    assert meta.model_dump_json(exclude_none=True) == f'{{"ask":"{ASK}","part":1,"channel":"C1"}}'


@pytest.mark.parametrize(
    "private_metadata",
    [
        "",
        "not json",
        "{}",
        '{"ask": 7}',
        '{"ask": "a", "part": "one"}',
        '{"ask": "a", "extra": 1}',
        '["a"]',
    ],
)
def test_view_meta_refuses_metadata_that_is_not_ours(private_metadata: str) -> None:
    with pytest.raises(ValidationError):
        ViewMeta.model_validate_json(private_metadata)


def test_view_meta_is_frozen() -> None:
    meta = ViewMeta(ask=ASK)
    with pytest.raises(ValidationError):
        meta.ask = "other"  # type: ignore[misc]


# --- typed refs -------------------------------------------------------------------------------


def test_each_typed_ref_writes_the_value_the_wire_ref_reads() -> None:
    assert OptionRef(ASK, 2).encode() == Ref(ASK, 2).encode()
    assert PartRef(ASK, 1).encode() == Ref(ASK, 1).encode()
    assert QuestionRef(ASK, 3).encode() == Ref(ASK, 3).encode()
    assert PageRef(ASK, 4).encode() == Ref(ASK, 4).encode()
    assert AskRef(ASK).encode() == Ref(ASK, 0).encode()


def test_a_wire_ref_reads_as_the_typed_ref_its_action_names() -> None:
    wire = Ref.decode(f"{ASK}/5")
    assert (OptionRef.of(wire), PartRef.of(wire), QuestionRef.of(wire), PageRef.of(wire)) == (
        OptionRef(ASK, 5),
        PartRef(ASK, 5),
        QuestionRef(ASK, 5),
        PageRef(ASK, 5),
    )
    assert AskRef.of(wire) == AskRef(ASK)


def test_block_kinds_are_distinct_on_the_wire() -> None:
    assert len({kind.value for kind in BlockKind}) == len(BlockKind) == 26
