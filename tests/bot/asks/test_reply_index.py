"""The reply index: a thread reply looks at the asks of its own thread, never at every ask."""

from __future__ import annotations

from bot.asks.reply_index import ReplyIndex


def _busy_index(others: int) -> ReplyIndex:
    index = ReplyIndex()
    for n in range(others):
        index.file(f"other-{n}", float(n), "C1", f"{n}.000001")
    return index


def test_a_reply_considers_only_the_asks_of_its_thread_however_many_are_pending() -> None:
    for others in (10, 10_000):
        index = _busy_index(others)
        index.file("mine", 1.0, "C1", "thread.1")
        assert index.candidates("C1", "thread.1") == {"mine": 1.0}
        assert index.newest("C1", "thread.1") == "mine"


def test_the_newest_open_question_of_a_thread_is_the_one_a_reply_answers() -> None:
    index = ReplyIndex()
    index.file("later", 20.0, "C1", "t")
    index.file("earlier", 10.0, "C1", "t")
    assert index.newest("C1", "t") == "later"


def test_a_top_level_ask_is_found_under_its_own_message_and_settling_unfiles_it() -> None:
    index = ReplyIndex()
    index.file("top", 1.0, "C1", "msg.1")
    index.file("top", 1.0, "C1", "msg.1")  # filed again after a restart: still once
    index.remove("top")
    assert (index.newest("C1", "msg.1"), index.candidates("C1", "msg.1")) == (None, {})


def test_the_same_thread_ts_in_another_channel_is_another_thread() -> None:
    index = ReplyIndex()
    index.file("here", 1.0, "C1", "t")
    assert index.newest("C2", "t") is None


def test_when_one_of_two_asks_of_a_thread_settles_a_reply_answers_the_other() -> None:
    index = ReplyIndex()
    index.file("first", 1.0, "C1", "t")
    index.file("second", 2.0, "C1", "t")
    index.remove("second")
    assert (index.newest("C1", "t"), index.candidates("C1", "t")) == ("first", {"first": 1.0})


def test_a_thread_keeps_its_asks_as_they_come_and_go() -> None:
    index = ReplyIndex()
    for n, ask_id in enumerate(("a", "b", "c")):
        index.file(ask_id, float(n), "C1", "t")
    index.remove("c")
    index.file("d", 3.0, "C1", "t")
    index.remove("a")
    assert (index.newest("C1", "t"), index.candidates("C1", "t")) == ("d", {"b": 1.0, "d": 3.0})
    index.remove("d")
    index.remove("b")
    assert (index.newest("C1", "t"), index.candidates("C1", "t")) == (None, {})


def test_an_ask_filed_under_two_threads_leaves_both_when_it_settles() -> None:
    index = ReplyIndex()
    index.file("mine", 2.0, "C1", "session.1")
    index.file("mine", 2.0, "C1", "msg.2")
    index.file("other", 1.0, "C1", "session.1")
    index.remove("mine")
    assert (index.newest("C1", "session.1"), index.newest("C1", "msg.2")) == ("other", None)
