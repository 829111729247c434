"""Terminal: a person at a terminal sees what Slack would show and answers there, through the
emulator's people API, to a real Bolt app served on 127.0.0.1."""

from __future__ import annotations

import asyncio
import io
import re
from typing import Any
from unittest.mock import ANY

from slack_bolt.async_app import AsyncAck, AsyncApp
from slack_sdk.web.async_client import AsyncWebClient

from slack_emulator import SlackEmulator
from slack_emulator.terminal import Terminal, color_wanted

from .conftest import ALICE, QUESTIONS, Keyboard, Screen

Json = dict[str, Any]
IN = "\N{SINGLE RIGHT-POINTING ANGLE QUOTATION MARK}"
"""Between a place and a part of it in headings and prompts."""
BACK_SEND = (
    "\N{SINGLE LEFT-POINTING ANGLE QUOTATION MARK}Back\N{SINGLE RIGHT-POINTING ANGLE QUOTATION MARK}  "
    "\N{SINGLE LEFT-POINTING ANGLE QUOTATION MARK}Send\N{SINGLE RIGHT-POINTING ANGLE QUOTATION MARK}"
)
"""A modal's close and submit labels, as the terminal shows them."""


def plain(text: str) -> Json:
    return {"type": "plain_text", "text": text}


def stored(text: str) -> Json:
    """A plain_text object as Slack echoes it back."""
    return {"type": "plain_text", "text": text, "emoji": True}


def option(label: str, value: str) -> Json:
    return {"text": plain(label), "value": value}


CHOICE: list[Json] = [
    {
        "type": "section",
        "block_id": "ask",
        "text": {"type": "mrkdwn", "text": "*Which database* should billing use?"},
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
]

FORM: list[Json] = [
    {
        "type": "section",
        "block_id": "ask",
        "text": {"type": "mrkdwn", "text": "*Demo agent* asks:"},
    },
    {
        "type": "input",
        "block_id": "owner",
        "optional": True,
        "label": plain("Which team owns it?"),
        "element": {
            "type": "radio_buttons",
            "action_id": "input",
            "options": [option("Payments", "0"), option("Platform", "1")],
        },
    },
    {
        "type": "input",
        "block_id": "regions",
        "optional": True,
        "label": plain("Which regions first?"),
        "element": {
            "type": "checkboxes",
            "action_id": "input",
            "options": [
                option("eu-west-1", "0"),
                option("us-east-1", "1"),
                option("ap-south-1", "2"),
            ],
        },
    },
    {
        "type": "input",
        "block_id": "name",
        "optional": True,
        "label": plain("What should it be called?"),
        "element": {"type": "plain_text_input", "action_id": "input"},
    },
    {
        "type": "actions",
        "block_id": "send",
        "elements": [
            {"type": "button", "action_id": "cancel", "text": plain("Cancel"), "value": "c"},
            {
                "type": "button",
                "action_id": "submit",
                "text": plain("Submit"),
                "style": "primary",
                "value": "s",
            },
        ],
    },
]


def other_modal(*, notify_on_close: bool = False) -> Json:
    return {
        "type": "modal",
        "callback_id": "other_answer",
        "title": plain("Your own answer"),
        "submit": plain("Send"),
        "close": plain("Back"),
        "notify_on_close": notify_on_close,
        "blocks": [
            {
                "type": "input",
                "block_id": "engine",
                "label": plain("Which engine?"),
                "element": {
                    "type": "static_select",
                    "action_id": "pick",
                    "placeholder": plain("Choose"),
                    "options": [option("MySQL", "mysql"), option("DuckDB", "duckdb")],
                },
            },
            {
                "type": "input",
                "block_id": "why",
                "optional": True,
                "label": plain("Why?"),
                "element": {"type": "plain_text_input", "action_id": "text"},
            },
        ],
    }


def rule(title: str, width: int = 72) -> str:
    """A heading as the terminal draws it across its width."""
    head = f"── {title} "
    return head + "─" * (width - len(head))


def record_actions(app: AsyncApp) -> list[Json]:
    """Every block_actions body the app receives (recorded before the ack)."""
    bodies: list[Json] = []

    async def listener(ack: AsyncAck, body: Json) -> None:
        bodies.append(body)
        await ack()

    app.action(re.compile(".*"))(listener)
    return bodies


def open_modal_on_other(app: AsyncApp, view: Json) -> None:
    """The app answers "Other…" by opening `view` with the click's trigger_id."""

    async def listener(ack: AsyncAck, body: Json, client: AsyncWebClient) -> None:
        await ack()
        await client.views_open(trigger_id=body["trigger_id"], view=view)

    app.action("other")(listener)


async def post(app: AsyncApp, blocks: list[Json], **fields: Any) -> str:
    posted = await app.client.chat_postMessage(
        channel=QUESTIONS, text="Which database?", blocks=blocks, **fields
    )
    return str(posted["ts"])


async def test_a_posted_question_appears_as_slack_shows_it_with_numbered_buttons(
    app: AsyncApp, terminal: Terminal, screen: Screen
) -> None:
    await post(app, CHOICE)
    shown = await screen.shows("h: help")
    assert shown.endswith(
        rule("#agent-questions · slack-questions") + "\nWhich database should billing use?\n"
        "[1] Postgres  [2] SQLite  [3] Other…\n"
        "“Which database?” — 1-3: click · h: help"
    )
    assert (await screen.shows(" > ")) == "\n“Which database?” > "


async def test_a_reply_in_a_thread_is_headed_with_its_thread(
    app: AsyncApp, terminal: Terminal, screen: Screen
) -> None:
    root = await app.client.chat_postMessage(
        channel=QUESTIONS, text="Demo agent needs answers from people"
    )
    await screen.shows("Demo agent needs answers from people")
    await post(app, CHOICE, thread_ts=root["ts"])
    shown = await screen.shows("[1] Postgres  [2] SQLite  [3] Other…")
    assert (
        f"── #agent-questions {IN} thread “Demo agent needs answers from p…” · slack-questions ─"
        in shown
    )


async def test_typing_a_number_clicks_that_button(
    emu: SlackEmulator, app: AsyncApp, terminal: Terminal, screen: Screen, keyboard: Keyboard
) -> None:
    clicks = record_actions(app)
    ts = await post(app, CHOICE)
    await screen.shows("[3] Other…")
    keyboard.type("2")
    await emu.wait_for(lambda: len(clicks) == 1, what="the click")
    assert clicks[0]["user"]["id"] == ALICE
    assert clicks[0]["container"] == {
        "type": "message",
        "message_ts": ts,
        "channel_id": QUESTIONS,
        "is_ephemeral": False,
    }
    assert clicks[0]["actions"] == [
        {
            "type": "button",
            "block_id": "database",
            "action_id": "pick.1",
            "text": stored("SQLite"),
            "value": "1",
            "action_ts": ANY,
        }
    ]


async def test_a_message_the_app_updates_is_shown_again_marked_updated(
    app: AsyncApp, terminal: Terminal, screen: Screen, keyboard: Keyboard
) -> None:
    async def answered(ack: AsyncAck, body: Json, client: AsyncWebClient) -> None:
        await ack()
        await client.chat_update(
            channel=body["channel"]["id"],
            ts=body["container"]["message_ts"],
            text="Answered",
            blocks=[
                {
                    "type": "context",
                    "elements": [
                        {
                            "type": "mrkdwn",
                            "text": f":white_check_mark: *SQLite* by <@{body['user']['id']}>",
                        }
                    ],
                }
            ],
        )

    app.action("pick.1")(answered)
    await post(app, CHOICE)
    await screen.shows("[3] Other…")
    keyboard.type("2")
    shown = await screen.shows("✅ SQLite by @alice")
    assert "── #agent-questions · slack-questions · updated ─" in shown


async def test_a_form_walk_through_fills_radio_checkboxes_and_text_then_clicks_submit(
    emu: SlackEmulator, app: AsyncApp, terminal: Terminal, screen: Screen, keyboard: Keyboard
) -> None:
    clicks = record_actions(app)
    await post(app, FORM)
    await screen.shows("Enter: fill in the form · 4-5: click · h: help")
    keyboard.type("")
    await screen.shows(f"[1] Which team owns it? {IN} a number 1-2, Enter to leave it > ")
    keyboard.type("2")
    await screen.shows(
        f"[2] Which regions first? {IN} numbers 1-3 like 1,3, - for none, Enter to leave it > "
    )
    keyboard.type("1, 3")
    await screen.shows(f"[3] What should it be called? {IN} type your answer, Enter to leave it > ")
    keyboard.type("Call it ledger")
    await emu.wait_for(lambda: len(clicks) == 1, what="the Submit click")
    assert [(a["action_id"], a["value"]) for a in clicks[0]["actions"]] == [("submit", "s")]
    assert clicks[0]["state"]["values"] == {
        "owner": {
            "input": {
                "type": "radio_buttons",
                "selected_option": {"text": stored("Platform"), "value": "1"},
            }
        },
        "regions": {
            "input": {
                "type": "checkboxes",
                "selected_options": [
                    {"text": stored("eu-west-1"), "value": "0"},
                    {"text": stored("ap-south-1"), "value": "2"},
                ],
            }
        },
        "name": {"input": {"type": "plain_text_input", "value": "Call it ledger"}},
    }


async def test_a_walk_through_explains_an_answer_that_does_not_fit_and_asks_again(
    emu: SlackEmulator, app: AsyncApp, terminal: Terminal, screen: Screen, keyboard: Keyboard
) -> None:
    clicks = record_actions(app)
    await post(app, FORM)
    await screen.shows("Enter: fill in the form")
    keyboard.type("", "7", "1 2")
    await screen.shows("Type one number from 1 to 2.\n[1] Which team owns it?")
    await screen.shows("Only one: type a number from 1 to 2.\n[1] Which team owns it?")
    keyboard.type("1", "x,2", "")
    await screen.shows(
        "Type numbers from 1 to 3, separated by commas (or - for none).\n[2] Which regions first?"
    )
    keyboard.type("")
    await emu.wait_for(lambda: len(clicks) == 1, what="the Submit click")
    assert clicks[0]["state"]["values"]["owner"]["input"]["selected_option"]["value"] == "0"
    assert clicks[0]["state"]["values"]["regions"]["input"]["selected_options"] == []
    assert clicks[0]["state"]["values"]["name"]["input"]["value"] is None


async def test_a_modal_the_app_opens_is_shown_walked_through_and_submitted(
    emu: SlackEmulator, app: AsyncApp, terminal: Terminal, screen: Screen, keyboard: Keyboard
) -> None:
    open_modal_on_other(app, other_modal())
    submissions: list[Json] = []

    async def on_submit(ack: AsyncAck, body: Json) -> None:
        submissions.append(body)
        await ack()

    app.view("other_answer")(on_submit)
    await post(app, CHOICE)
    await screen.shows("[3] Other…")
    keyboard.type("3")
    shown = await screen.shows("Enter: fill in the form · c: close · h: help")
    assert shown[shown.index("┌─") :] == (
        "┌─ Your own answer " + "─" * 53 + "\n"
        "│ Which engine?\n"
        "│ [1] ▾ Choose\n"
        "│     1) ( ) MySQL\n"
        "│     2) ( ) DuckDB\n"
        "│\n"
        "│ Why? (optional)\n"
        "│ [2] ✎ (type here)\n"
        f"└─ {BACK_SEND} " + "─" * 54 + "\n"
        "modal “Your own answer” — Enter: fill in the form · c: close · h: help"
    )
    keyboard.type("", "")
    await screen.shows(f"[1] Which engine? {IN} a number 1-2 (required) > \nThis one is required.")
    keyboard.type("2", "Small and embedded")
    await emu.wait_for(lambda: len(submissions) == 1, what="the submission")
    assert submissions[0]["view"]["state"]["values"] == {
        "engine": {
            "pick": {
                "type": "static_select",
                "selected_option": {"text": stored("DuckDB"), "value": "duckdb"},
            }
        },
        "why": {"text": {"type": "plain_text_input", "value": "Small and embedded"}},
    }
    await screen.shows("(the modal “Your own answer” closed)")
    assert emu.views(ALICE) == []


async def test_errors_the_app_answers_a_submission_with_are_shown_in_the_modal(
    emu: SlackEmulator, app: AsyncApp, terminal: Terminal, screen: Screen, keyboard: Keyboard
) -> None:
    open_modal_on_other(app, other_modal())

    async def on_submit(ack: AsyncAck, body: Json) -> None:
        await ack(response_action="errors", errors={"why": "Say why, please"})

    app.view("other_answer")(on_submit)
    await post(app, CHOICE)
    await screen.shows("[3] Other…")
    keyboard.type("3")
    await screen.shows("┌─ Your own answer")
    keyboard.type("", "1", "")
    shown = await screen.shows("│ ⚠ Say why, please")
    assert "│ [1] ▾ Choose\n│     1) (•) MySQL" in shown
    assert len(emu.views(ALICE)) == 1


async def test_c_closes_the_modal_and_the_app_hears_view_closed(
    emu: SlackEmulator, app: AsyncApp, terminal: Terminal, screen: Screen, keyboard: Keyboard
) -> None:
    open_modal_on_other(app, other_modal(notify_on_close=True))
    closed: list[Json] = []

    async def on_close(ack: AsyncAck, body: Json) -> None:
        closed.append(body)
        await ack()

    app.view_closed("other_answer")(on_close)
    await post(app, CHOICE)
    await screen.shows("[3] Other…")
    keyboard.type("3")
    await screen.shows("┌─ Your own answer")
    keyboard.type("c")
    await emu.wait_for(lambda: len(closed) == 1, what="view_closed")
    assert closed[0]["type"] == "view_closed"
    assert closed[0]["view"]["callback_id"] == "other_answer"
    assert closed[0]["is_cleared"] is False
    await screen.shows("(the modal “Your own answer” closed)")
    assert emu.views(ALICE) == []


async def test_invalid_input_is_explained_in_one_line_and_the_prompt_comes_back(
    emu: SlackEmulator, app: AsyncApp, terminal: Terminal, screen: Screen, keyboard: Keyboard
) -> None:
    clicks = record_actions(app)
    keyboard.type("1")
    assert await screen.shows("There is no question to answer yet.\n> ")
    await post(app, CHOICE)
    await screen.shows("[3] Other…")
    keyboard.type("9")
    await screen.shows("There is no [9] here; type one of 1-3.\n“Which database?” > ")
    keyboard.type("maybe")
    await screen.shows(
        "Not understood: 'maybe'. Type a number, Enter, c, r TEXT or h (help).\n“Which database?” > "
    )
    keyboard.type("c")
    await screen.shows("No modal is open.\n“Which database?” > ")
    keyboard.type("r")
    await screen.shows("Type r and your reply, e.g. r looks good to me\n“Which database?” > ")
    keyboard.type("h")
    await screen.shows("r TEXT   reply in the current thread")
    keyboard.type("1")
    await emu.wait_for(lambda: len(clicks) == 1, what="the click")
    assert clicks[0]["actions"][0]["action_id"] == "pick.0"


async def test_r_replies_in_the_current_questions_thread(
    emu: SlackEmulator, app: AsyncApp, terminal: Terminal, screen: Screen, keyboard: Keyboard
) -> None:
    events: list[Json] = []

    async def on_message(ack: AsyncAck, event: Json) -> None:
        events.append(event)
        await ack()

    app.event("message")(on_message)
    root = await app.client.chat_postMessage(channel=QUESTIONS, text="Demo agent asks")
    await post(app, CHOICE, thread_ts=root["ts"])
    await screen.shows("[3] Other…")
    keyboard.type("r Let us talk about it first")
    await emu.wait_for(lambda: len(events) == 1, what="the reply event")
    assert (events[0]["user"], events[0]["thread_ts"], events[0]["text"]) == (
        ALICE,
        root["ts"],
        "Let us talk about it first",
    )
    await screen.shows(f"(you replied in #agent-questions {IN} thread “Demo agent asks”)")


async def test_an_ephemeral_message_and_a_deletion_are_shown(
    app: AsyncApp, terminal: Terminal, screen: Screen
) -> None:
    ts = await post(app, CHOICE)
    await screen.shows("[3] Other…")
    await app.client.chat_postEphemeral(
        channel=QUESTIONS, user=ALICE, text="Only *you* can answer this one."
    )
    shown = await screen.shows("Only you can answer this one.")
    assert f"── #agent-questions {IN} only you can see this ─" in shown
    await app.client.chat_delete(channel=QUESTIONS, ts=ts)
    await screen.shows("(a message in #agent-questions was removed)")


async def test_say_prints_whole_lines_and_brings_the_prompt_back(
    terminal: Terminal, screen: Screen
) -> None:
    await screen.shows("> ")
    terminal.say("[demo agent] got an answer")
    assert await screen.shows("> ") == "\n[demo agent] got an answer\n> "


async def test_end_of_input_ends_the_terminal_quietly_even_mid_form(
    emu: SlackEmulator,
    app: AsyncApp,
    reader: asyncio.StreamReader,
    screen: Screen,
    keyboard: Keyboard,
) -> None:
    term = Terminal(emu, ALICE, input=reader, output=screen, width=72, color=False)
    task = asyncio.create_task(term.run())
    await post(app, FORM)
    await screen.shows("Enter: fill in the form")
    keyboard.type("")
    await screen.shows("[1] Which team owns it?")
    keyboard.end()
    await asyncio.wait_for(task, 5.0)
    assert task.exception() is None
    assert screen.getvalue().endswith("Enter to leave it > \n")


async def test_stop_ends_a_started_terminal(
    emu: SlackEmulator, reader: asyncio.StreamReader, screen: Screen
) -> None:
    term = Terminal(emu, ALICE, input=reader, output=screen, width=72, color=False)
    task = term.start()
    await screen.shows("> ")
    await term.stop()
    assert task.cancelled()
    await term.stop()  # idempotent


async def test_a_form_the_app_changes_mid_walk_stops_the_walk_and_sends_nothing(
    app: AsyncApp, terminal: Terminal, screen: Screen, keyboard: Keyboard
) -> None:
    clicks = record_actions(app)
    ts = await post(app, FORM)
    await screen.shows("Enter: fill in the form")
    keyboard.type("")
    await screen.shows("[1] Which team owns it?")
    await app.client.chat_update(channel=QUESTIONS, ts=ts, text="Answered by Bob", blocks=[])
    await screen.shows(
        "Answered by Bob\nThat question changed while you were answering; press Enter."
    )
    keyboard.type("")
    await screen.shows("That question changed while you were answering; nothing was sent.\n> ")
    assert clicks == []


class _Tty(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_colour_only_on_a_terminal_and_never_with_no_color() -> None:
    assert color_wanted(_Tty(), {}) is True
    assert color_wanted(_Tty(), {"NO_COLOR": "1"}) is False
    assert color_wanted(io.StringIO(), {}) is False


async def test_c_while_filling_in_a_message_form_stops_without_sending(
    app: AsyncApp, terminal: Terminal, screen: Screen, keyboard: Keyboard
) -> None:
    clicks = record_actions(app)
    await post(app, FORM)
    await screen.shows("Enter: fill in the form")
    keyboard.type("", "2", "c")
    await screen.shows("Stopped filling in; nothing was sent.\n“Which database?” > ")
    assert clicks == []


async def test_each_value_set_in_a_form_walk_is_shown_before_the_form_is_sent(
    emu: SlackEmulator, app: AsyncApp, terminal: Terminal, screen: Screen, keyboard: Keyboard
) -> None:
    clicks = record_actions(app)
    await post(app, FORM)
    await screen.shows("Enter: fill in the form")
    keyboard.type("", "2")
    await screen.shows("2\n[1] Which team owns it? ✓ Platform\n")
    keyboard.type("1, 3")
    await screen.shows("1, 3\n[2] Which regions first? ✓ eu-west-1, ap-south-1\n")
    keyboard.type("Call it ledger")
    await screen.shows("Call it ledger\n[3] What should it be called? ✓ “Call it ledger”\n")
    await emu.wait_for(lambda: len(clicks) == 1, what="the Submit click")


async def test_a_value_set_by_its_number_is_shown_as_kept_until_the_form_is_sent(
    app: AsyncApp, terminal: Terminal, screen: Screen, keyboard: Keyboard
) -> None:
    clicks = record_actions(app)
    await post(app, FORM)
    await screen.shows("Enter: fill in the form")
    keyboard.type("2", "1,2")
    await screen.shows(
        "1,2\n[2] Which regions first? ✓ eu-west-1, us-east-1\n"
        "(kept until the form is sent: Enter fills it in)\n"
    )
    assert clicks == []


async def test_a_dash_unticks_every_box_and_the_prompt_says_so(
    app: AsyncApp, terminal: Terminal, screen: Screen, keyboard: Keyboard
) -> None:
    await post(app, FORM)
    await screen.shows("Enter: fill in the form")
    keyboard.type("2", "1,3", "2")
    await screen.shows(f"[2] Which regions first? {IN} numbers 1-3 like 1,3, - for none")
    keyboard.type("-")
    await screen.shows("-\n[2] Which regions first? ✓ (none ticked)\n")


async def test_the_apps_status_line_under_a_thread_is_shown_when_it_is_set(
    app: AsyncApp, terminal: Terminal, screen: Screen
) -> None:
    root = await app.client.chat_postMessage(channel=QUESTIONS, text="Deploy agent started")
    await screen.shows("Deploy agent started")
    await app.client.assistant_threads_setStatus(
        channel_id=QUESTIONS, thread_ts=root["ts"], status="is waiting for an answer"
    )
    await screen.shows(
        f"#agent-questions {IN} thread “Deploy agent started” · "
        "slack-questions is waiting for an answer\n"
    )
