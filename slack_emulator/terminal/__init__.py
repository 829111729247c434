"""A person at a terminal, using the emulated Slack: Block Kit shown as text, answers typed
as lines and sent as Slack's own payloads. See the README beside the package.

    session.py       Terminal: ties screen, command loop and acts together; watches the emulator
    screen.py        what the person sees, and which question is current
    command_loop.py  one typed line -> one act
    form_walk.py     filling in a form input by input, then Submit
    acts.py          click, submit, close, reply; warnings when the app does not answer
    console.py       printed lines and the prompt, never torn
    block_render.py  Block Kit -> text and numbered controls (pure)
    controls.py      the numbered controls, their kinds derived from the element table
    markup.py        mrkdwn, Markdown and rich_text as read in a terminal (pure)
    ansi.py          colour codes, visible width, wrapping (pure)
"""

from slack_emulator.terminal.block_render import render_blocks, render_message, render_view
from slack_emulator.terminal.console import color_wanted
from slack_emulator.terminal.controls import Choice, Control, Rendered
from slack_emulator.terminal.markup import Names, Style
from slack_emulator.terminal.session import Terminal

__all__ = [
    "Choice",
    "Control",
    "Names",
    "Rendered",
    "Style",
    "Terminal",
    "color_wanted",
    "render_blocks",
    "render_message",
    "render_view",
]
