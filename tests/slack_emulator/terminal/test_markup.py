"""markup: Slack's mrkdwn as a person reads it in a terminal, with and without colour."""

from __future__ import annotations

from slack_emulator.terminal.markup import Names, Style, mrkdwn

NAMES = Names(
    user={"U0ALICE001": "alice"}.get,
    channel={"C0QUESTION": "agent-questions"}.get,
    group={"S0REVIEWER": "reviewers"}.get,
)
PLAIN = Style(width=60, color=False, names=NAMES)
COLOR = Style(width=60, color=True, names=NAMES)


def test_colour_makes_bold_italic_code_and_mentions_ansi_styles() -> None:
    text = "*Ship* _now_? `make deploy` for <@U0ALICE001> ~later~"
    assert mrkdwn(text, COLOR) == (
        "\x1b[1mShip\x1b[22m \x1b[3mnow\x1b[23m? \x1b[36mmake deploy\x1b[39m for "
        "\x1b[94m@alice\x1b[39m \x1b[9mlater\x1b[29m"
    )
    assert mrkdwn(text, PLAIN) == "Ship now? `make deploy` for @alice ~later~"


def test_slack_tokens_read_as_slack_shows_them() -> None:
    cases = {
        "<@U0ALICE001>": "@alice",
        "<@U0NOBODY00>": "@U0NOBODY00",
        "<!subteam^S0REVIEWER>": "@reviewers",
        "<!subteam^S0OTHERS0|@others>": "@others",
        "<!here>": "@here",
        "<#C0QUESTION>": "#agent-questions",
        "<!date^1700000000^{date}|Nov 14>": "Nov 14",
        "<https://example.com|docs>": "docs (https://example.com)",
        "<https://example.com>": "https://example.com",
        "<mailto:a@example.com|a@example.com>": "a@example.com",
        "&lt;b&gt; &amp;amp;": "<b> &amp;",
        "snake_case_name and 2*3*4": "snake_case_name and 2*3*4",
        "&gt; quoted\nplain": "│ quoted\nplain",
        ":warning: :no_such_emoji:": "⚠️ :no_such_emoji:",
    }
    assert {text: mrkdwn(text, PLAIN) for text in cases} == cases
