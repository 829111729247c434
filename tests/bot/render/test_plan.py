"""Plans under review: the Markdown preview for a message, the whole plan as mrkdwn pages for a
modal, the conversion between the two, token neutralizing, and revision diffs."""

from __future__ import annotations

import math
import random
import re
from typing import Any

import pytest
from slack_sdk.models.blocks import Block
from slack_sdk.models.views import View

from bot.render.markdown import RULE, ZWSP, markdown_to_mrkdwn
from bot.render.plan import (
    CODE_CONTINUES,
    CONTINUES,
    EMPTY_PLAN,
    PlanDiff,
    neutralize,
    plan_diff,
    plan_pages,
    plan_preview,
    reveal_links,
)
from bot.render.text import unescape

HOSTILE = "<!channel> <@U123> <https://evil.example|your bank> & co"
OUR_LINK = re.compile(r"<(?:https?://|mailto:)[^\s<>|]+>")
ENTITY = re.compile(r"&(?:amp|lt|gt);")


def texts(blocks: list[Block]) -> list[str]:
    """The text of each block, as Slack receives it (slack_sdk validates it on the way)."""
    out: list[str] = []
    for block in blocks:
        data: dict[str, Any] = block.to_dict()
        text = data["text"]
        out.append(text if isinstance(text, str) else text["text"])
    return out


def preview_text(markdown: str, budget: int = 11_000) -> str:
    (text,) = texts(plan_preview(markdown, budget=budget).blocks)
    return text


def fence_lines(text: str) -> list[str]:
    """The lines of Markdown that open or close a code block."""
    return [line for line in text.split("\n") if line.strip().startswith(("```", "~~~"))]


def mrkdwn_fences(text: str) -> int:
    """How many code fences a mrkdwn text has; each must be a line of its own."""
    fences = text.split("\n").count("```")
    assert text.count("```") == fences, text
    return fences


def assert_safe_mrkdwn(mrkdwn: str) -> None:
    """Only our own `<https://…>` links and quote marks; every `&` starts a whole entity."""
    rest = OUR_LINK.sub("", mrkdwn)
    assert "<" not in rest
    assert ">" not in re.sub(r"(?m)^> ", "", rest)
    assert all(ENTITY.match(rest, m.start()) for m in re.finditer("&", rest))


# --- a realistic 30,000-character plan ---------------------------------------------------------

COMPONENTS = ["billing", "ledger", "invoices", "payouts", "refunds", "reports", "audit", "search"]


def plan_section(k: int) -> str:
    name = COMPONENTS[k % len(COMPONENTS)]
    return f"""## {k}. Move the {name} workers to the new queue

The {name} workers move from the old broker to the new queue. **Why:** the old broker drops
messages under load; see [the incident report](https://wiki.example.com/incidents/{k}?tab=summary&lang=en)
and _the runbook_ before starting. Owners: @{name}-team.

### Steps

1. Freeze writes to `{name}_jobs` for ~~ten~~ five minutes.
2. Copy the backlog:
   - export with `pg_dump --table={name}_jobs`
   - verify that the counts match
     - per shard, including shard {k}
3. Switch the consumer behind the `queue.{name}` flag.

```python
def migrate_{k}(source: Queue, target: Queue) -> int:
    \"\"\"Copy every pending job; return how many moved.\"\"\"
    moved = 0
    for job in source.drain(batch=500):
        if job.attempts < 3 and job.size <= LIMIT:
            target.put(job)  # keeps <order> & **priority**
            moved += 1
    return moved
```

```bash
kubectl -n {name} scale deploy/{name}-worker --replicas=0 && echo "paused <{name}>"
```

| Risk | Mitigation |
|------|------------|
| duplicate {name} jobs | idempotency keys |

> Rollback: turn `queue.{name}` off; the old broker keeps every job for 7 days.

---
"""


def realistic_plan(size: int = 30_000) -> str:
    parts = ["# Plan: retire the old message broker\n\nEight services move, one at a time.\n\n"]
    k = 1
    while sum(map(len, parts)) < size:
        parts.append(plan_section(k))
        k += 1
    return "\n".join(parts)


PLAN = realistic_plan()


def source_content(line: str) -> str:
    """A plan line's content without its Markdown syntax (empty for syntax-only lines)."""
    text = line.strip()
    if text.startswith(("```", "~~~")) or re.fullmatch(r"[-*_=\s]*", text):
        return ""
    text = re.sub(r"^(?:>\s?)+", "", text)
    text = re.sub(r"^#{1,6}\s+", "", text)
    text = re.sub(r"^(?:[-*+]|\d+[.)])\s+", "", text)
    text = re.sub(r"!?\[([^\]]*)\]\(([^)\s]+)\)", r"\1 (\2)", text)
    return plain(text)


def shown_content(mrkdwn: str) -> str:
    """What a person reads in mrkdwn, without formatting: entities decoded, marks dropped."""
    lines = [line for line in unescape(mrkdwn).split("\n") if line != "```"]
    return plain(" ".join(lines).replace(ZWSP, "").replace("•", ""))


def plain(text: str) -> str:
    return " ".join(re.sub(r"[*_~`<>]", "", text).split())


# --- neutralize --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("raw", "neutral"),
    [
        ("<!channel>", f"<{ZWSP}!channel>"),
        ("<!here|here>", f"<{ZWSP}!here|here>"),
        ("<@U123>", f"<{ZWSP}@U123>"),
        ("<#C123|general>", f"<{ZWSP}#C123|general>"),
        ("<https://evil.example|your bank>", f"<{ZWSP}https://evil.example|your bank>"),
        ("<HTTP://evil.example>", f"<{ZWSP}HTTP://evil.example>"),
        ("<mailto:a@b.example|mail>", f"<{ZWSP}mailto:a@b.example|mail>"),
        ("&lt;!channel&gt;", f"&lt;{ZWSP}!channel&gt;"),
        ("&#60;@U123>", f"&#60;{ZWSP}@U123>"),
    ],
)
def test_neutralize_breaks_every_slack_token_start(raw: str, neutral: str) -> None:
    assert neutralize(raw) == neutral


def test_neutralize_breaks_tokens_inside_code_too() -> None:
    assert neutralize("`<!here>`\n```\n<@U1>\n```") == f"`<{ZWSP}!here>`\n```\n<{ZWSP}@U1>\n```"


def test_neutralize_leaves_everything_else_byte_for_byte() -> None:
    text = "a < b, x<y, Vec<T>, 3 <= 4, <div>, <>, & &amp; **bold** [l](https://x.example)\r\n"
    assert neutralize(text) == text


def test_neutralize_is_idempotent() -> None:
    assert neutralize(neutralize(HOSTILE)) == neutralize(HOSTILE)


# --- markdown_to_mrkdwn: each construct ---------------------------------------------------------


@pytest.mark.parametrize(
    ("markdown", "mrkdwn"),
    [
        ("# Title", "*Title*"),
        ("###### Deep title", "*Deep title*"),
        ("## Closed title ##", "*Closed title*"),
        ("# The **new** plan", "*The new plan*"),
        ("Title\n=====\n\ntext", "*Title*\n\ntext"),
        ("#hashtag stays text", "#hashtag stays text"),
        ("**bold** and __bold__", "*bold* and *bold*"),
        ("*it* and _it_", "_it_ and _it_"),
        ("***both***", "_*both*_"),
        ("**a *b* c**", "*a _b_ c*"),
        ("~~gone~~ and ~gone~", "~gone~ and ~gone~"),
        ("snake_case_name and 2 * 3 * 4", "snake_case_name and 2 * 3 * 4"),
        ("one\ntwo", "one two"),
        ("one  \ntwo\\\nthree", "one\ntwo\nthree"),
        ("> quoted **text**", "> quoted *text*"),
        ("> outer\n> > inner", "> outer\n> &gt; inner"),
        ("text\n\n---\n\nmore", f"text\n\n{RULE}\n\nmore"),
        ("`a < b && *c*`", "`a &lt; b &amp;&amp; *c*`"),
        ("use ``` here", f"use `{ZWSP}`{ZWSP}` here"),
        ("\\``` here", f"`{ZWSP}`{ZWSP}` here"),
        ("- [ ] to do\n- [x] done", "• ☐ to do\n• ☑ done"),
        ("* star\n+ plus", "• star\n• plus"),
        ("Steps:\n1. one\n2. two", "Steps:\n1. one\n2. two"),
        ("shipped in version\n2024. It works", "shipped in version 2024. It works"),
    ],
)
def test_markdown_to_mrkdwn_converts_each_construct(markdown: str, mrkdwn: str) -> None:
    assert markdown_to_mrkdwn(markdown) == mrkdwn


def test_nested_lists_keep_their_numbers_and_indentation() -> None:
    markdown = (
        "1. Prepare\n"
        "   - check `a`\n"
        "     - deeper\n"
        "2. Ship\n"
        "   still step two\n"
        "\n"
        "   a second paragraph\n"
        "10. Ten\n"
        "\n"
        "after the list"
    )
    assert markdown_to_mrkdwn(markdown) == (
        "1. Prepare\n"
        "    • check `a`\n"
        "        • deeper\n"
        "2. Ship still step two\n"
        "\n"
        "   a second paragraph\n"
        "10. Ten\n"
        "\n"
        "after the list"
    )


def test_fenced_code_is_untouched_except_escaping() -> None:
    code = (
        "if a < b and c_d_e:\n    print('**x**')  # [a](b) & ~~s~~\n# not a heading\n- not a list"
    )
    assert markdown_to_mrkdwn(f"```python\n{code}\n```") == (
        "```\n"
        "if a &lt; b and c_d_e:\n"
        "    print('**x**')  # [a](b) &amp; ~~s~~\n"
        "# not a heading\n"
        "- not a list\n"
        "```"
    )


def test_code_in_a_list_item_loses_only_the_item_indentation() -> None:
    markdown = "- step:\n  ```bash\n  make <all> &&\n    run\n  ```\n- next"
    assert markdown_to_mrkdwn(markdown) == (
        "• step:\n```\nmake &lt;all&gt; &amp;&amp;\n  run\n```\n• next"
    )


def test_indented_code_is_code() -> None:
    assert markdown_to_mrkdwn("para\n\n    x = *y*\n    z\n\nafter") == (
        "para\n\n```\nx = *y*\nz\n```\n\nafter"
    )


def test_an_unclosed_fence_runs_to_the_end_and_is_closed() -> None:
    assert markdown_to_mrkdwn("intro\n```\ncode") == "intro\n```\ncode\n```"


def test_three_backticks_inside_code_cannot_close_the_block() -> None:
    assert markdown_to_mrkdwn("````\n```inner\n````") == f"```\n`{ZWSP}`{ZWSP}`inner\n```"


def test_code_in_a_block_quote_is_shown_as_code_outside_the_quote() -> None:
    assert markdown_to_mrkdwn("> quote\n> ```\n> x <@U1>\n> ```\n> after") == (
        "> quote\n```\nx &lt;@U1&gt;\n```\n> after"
    )


def test_a_table_is_kept_as_a_preformatted_block() -> None:
    markdown = "| a | b |\n|---|:-:|\n| <!here> | 2 & 3 |\n\nafter"
    assert markdown_to_mrkdwn(markdown) == (
        "```\n| a | b |\n|---|:-:|\n| &lt;!here&gt; | 2 &amp; 3 |\n```\n\nafter"
    )


@pytest.mark.parametrize(
    ("markdown", "mrkdwn"),
    [
        (
            "[docs](https://example.com/a?b=1&c=2)",
            "docs (<https://example.com/a?b=1&amp;c=2>)",
        ),
        ('[docs](https://example.com "Title")', "docs (<https://example.com>)"),
        ("[**bold** docs](https://example.com)", "*bold* docs (<https://example.com>)"),
        ("[https://x.example](https://x.example)", "<https://x.example>"),
        (
            "[https://bank.example](https://evil.example)",
            "<https://bank.example> (<https://evil.example>)",
        ),
        ("![diagram](https://x.example/d.png)", "diagram (<https://x.example/d.png>)"),
        ("<https://example.com/x>", "<https://example.com/x>"),
        ("see https://example.com/x.", "see <https://example.com/x>."),
        ("[mail](mailto:ops@example.com)", "mail (<mailto:ops@example.com>)"),
        ("[design](docs/DESIGN.md)", "design (docs/DESIGN.md)"),
        (
            "[![build](https://ci.example/b.svg)](https://ci.example)",
            "build (<https://ci.example/b.svg>) (<https://ci.example>)",
        ),
    ],
)
def test_links_and_images_show_their_url(markdown: str, mrkdwn: str) -> None:
    assert markdown_to_mrkdwn(markdown) == mrkdwn


@pytest.mark.parametrize(
    ("markdown", "mrkdwn"),
    [
        ("[x](javascript:alert(1))", "x (javascript:alert(1))"),
        ("[ping](<!channel>)", "ping (!channel)"),
        ("[bank](<https://evil.example|bank>)", "bank (https://evil.example|bank)"),
        ("<https://evil.example|your bank>", "&lt;https://evil.example|your bank&gt;"),
        ("<slack://open>", "&lt;slack://open&gt;"),
    ],
)
def test_a_target_that_is_not_a_plain_web_link_is_shown_as_text(markdown: str, mrkdwn: str) -> None:
    assert markdown_to_mrkdwn(markdown) == mrkdwn


def test_a_paragraph_of_unclosed_brackets_stays_text_and_renders_at_once() -> None:
    assert markdown_to_mrkdwn("[" * 30_000) == "[" * 30_000
    assert markdown_to_mrkdwn("[a](" * 8_000) == "[a](" * 8_000


def test_deeply_nested_link_labels_render_without_recursing() -> None:
    mrkdwn = markdown_to_mrkdwn("[" * 3000 + "deep" + "](https://x.example)" * 3000)
    assert "deep" in mrkdwn
    assert_safe_mrkdwn(mrkdwn)


def test_hostile_text_never_survives_raw_in_mrkdwn() -> None:
    markdown = "\n".join(
        [
            f"# {HOSTILE}",
            HOSTILE,
            f"- {HOSTILE}",
            f"1. **{HOSTILE}**",
            f"> {HOSTILE}",
            f"`{HOSTILE}`",
            f"[{HOSTILE}](https://ok.example/?a=1&b=<2>)",
            f"![{HOSTILE}](<!here>)",
            "",
            f"| {HOSTILE} |\n|---|",
            "",
            f"```\n{HOSTILE}\n```",
        ]
    )
    mrkdwn = markdown_to_mrkdwn(markdown)
    assert_safe_mrkdwn(mrkdwn)
    assert mrkdwn.count("&lt;!channel&gt;") == 10


def test_hostile_text_is_neutralized_in_the_preview() -> None:
    assert preview_text(f"{HOSTILE}\n\n```\n{HOSTILE}\n```") == (
        f"<{ZWSP}!channel> <{ZWSP}@U123> <{ZWSP}https://evil.example|your bank> & co\n\n"
        f"```\n<{ZWSP}!channel> <{ZWSP}@U123> <{ZWSP}https://evil.example|your bank> & co\n```"
    )


# --- plan_preview ------------------------------------------------------------------------------


def test_a_short_plan_is_shown_whole_in_one_markdown_block() -> None:
    plan = "## Plan\n\n1. Add the table\n2. Backfill it\n"
    preview = plan_preview(plan)
    assert [block.to_dict() for block in preview.blocks] == [{"type": "markdown", "text": plan}]
    assert (preview.shown_chars, preview.total_chars, preview.complete) == (
        len(plan),
        len(plan),
        True,
    )


def test_an_empty_plan_says_so() -> None:
    preview = plan_preview("  \n")
    assert texts(preview.blocks) == [EMPTY_PLAN]
    assert preview.complete


def test_a_long_plan_preview_stays_within_budget_and_says_it_is_incomplete() -> None:
    preview = plan_preview(PLAN)
    (text,) = texts(preview.blocks)
    assert len(PLAN) >= 30_000
    assert len(text) <= 11_000
    assert not preview.complete
    assert preview.total_chars == len(PLAN)
    assert 8_000 < preview.shown_chars < 11_000
    assert text.endswith(CONTINUES)


def test_a_long_plan_preview_ends_at_a_line_end_outside_code() -> None:
    preview = plan_preview(PLAN)
    (text,) = texts(preview.blocks)
    shown = PLAN[: preview.shown_chars]
    assert text == f"{neutralize(reveal_links(shown))}\n\n{CONTINUES}"
    assert PLAN[preview.shown_chars :].lstrip(" \t").startswith("\n")
    assert len(fence_lines(shown)) % 2 == 0


@pytest.mark.parametrize("budget", range(300, 11_001, 577))
def test_every_budget_gives_a_preview_within_it_with_code_blocks_balanced(budget: int) -> None:
    preview = plan_preview(PLAN, budget=budget)
    (text,) = texts(preview.blocks)
    shown = PLAN[: preview.shown_chars]
    assert len(text) <= budget
    assert len(fence_lines(text)) % 2 == 0
    assert text.startswith(neutralize(reveal_links(shown)))
    assert PLAN[preview.shown_chars :].lstrip(" \t").startswith("\n")


def test_a_preview_does_not_end_on_a_heading() -> None:
    plan = "Intro line.\n\n" + "".join(f"## Part {n}\n\n{'words ' * 30}\n\n" for n in range(60))
    preview = plan_preview(plan, budget=2000)
    last = plan[: preview.shown_chars].rstrip().split("\n")[-1]
    assert last.startswith("words")


def test_a_cut_late_in_a_code_block_moves_before_the_block() -> None:
    prose = "".join(f"Line {n} of the prose before the code.\n" for n in range(20))
    plan = f"{prose}\n```python\n" + "x = 1\n" * 200 + "```\n"
    assert preview_text(plan, budget=1000) == f"{prose.rstrip()}\n\n{CONTINUES}"


def test_a_cut_early_in_a_code_block_closes_the_block_and_says_so() -> None:
    plan = "Intro.\n\n~~~sh\n" + "".join(f"step {n} <&>\n" for n in range(200)) + "~~~\n"
    text = preview_text(plan, budget=500)
    assert text.startswith("Intro.\n\n~~~sh\nstep 0 <&>\n")
    assert text.endswith(f"\n~~~\n\n{CODE_CONTINUES}")
    assert len(text) <= 500


def test_a_preview_of_one_long_line_is_cut_between_words() -> None:
    plan = " ".join(f"word{n}" for n in range(4000))
    preview = plan_preview(plan, budget=1000)
    (text,) = texts(preview.blocks)
    assert text == f"{plan[: preview.shown_chars]}\n\n{CONTINUES}"
    assert plan[preview.shown_chars] == " "


def test_a_budget_outside_the_markdown_limit_is_refused() -> None:
    with pytest.raises(ValueError, match="budget"):
        plan_preview(PLAN, budget=12_001)


# --- plan_pages --------------------------------------------------------------------------------


def test_a_short_plan_is_one_page_of_one_section() -> None:
    pages = plan_pages("## Plan\n\n- one <!here>\n- two")
    assert [[block.to_dict() for block in page] for page in pages] == [
        [
            {
                "type": "section",
                "block_id": "sq~plan.0",
                "text": {
                    "type": "mrkdwn",
                    "verbatim": True,
                    "text": "*Plan*\n\n• one &lt;!here&gt;\n• two",
                },
            }
        ]
    ]


def test_an_empty_plan_is_one_section_saying_so() -> None:
    assert [texts(page) for page in plan_pages("")] == [[EMPTY_PLAN]]


def test_the_pages_cover_every_line_of_a_long_plan_in_order() -> None:
    shown = shown_content("\n".join(text for page in plan_pages(PLAN) for text in texts(page)))
    position = 0
    for line in PLAN.split("\n"):
        content = source_content(line)
        if content:
            found = shown.find(content, position)
            assert found >= 0, f"missing or out of order: {line!r}"
            position = found + len(content)


def test_every_section_fits_and_keeps_its_code_blocks_balanced() -> None:
    pages = plan_pages(PLAN)
    sections = [text for page in pages for text in texts(page)]
    assert len(sections) > 10
    assert all(len(text) <= 3000 for text in sections)
    assert all(mrkdwn_fences(text) % 2 == 0 for text in sections)
    assert all(len(page) <= 90 for page in pages)
    for page in pages:
        View(type="modal", title="The plan", blocks=page).to_dict()


def test_sections_break_at_paragraphs_and_never_right_under_a_heading() -> None:
    sections = [text for page in plan_pages(PLAN) for text in texts(page)]
    for text in sections[:-1]:
        assert not re.fullmatch(r"\*[^*]+\*", text.split("\n")[-1]), text[-200:]
        assert not text.split("\n")[-1].startswith(("    •", "        •")), text[-200:]


def test_pages_hold_at_most_per_page_blocks_with_ids_unique_across_pages() -> None:
    pages = plan_pages(PLAN, per_page=3)
    count = sum(len(page) for page in pages)
    ids = [block.block_id for page in pages for block in page]
    assert len(pages) == math.ceil(count / 3)
    assert all(len(page) <= 3 for page in pages)
    assert ids == [f"sq~plan.{n}" for n in range(count)]


def test_a_code_block_longer_than_a_section_is_closed_and_reopened() -> None:
    code = [f"value_{n} = compute({n}) & mask" for n in range(300)]
    sections = [
        text for page in plan_pages("```\n" + "\n".join(code) + "\n```") for text in texts(page)
    ]
    assert len(sections) > 2
    for text in sections:
        assert text.startswith("```\n")
        assert text.endswith("\n```")
        assert len(text) <= 3000
    inner = [line for text in sections for line in text.split("\n") if line != "```"]
    assert inner == [line.replace("&", "&amp;") for line in code]


def test_a_line_longer_than_a_section_is_cut_between_words() -> None:
    words = [f"w{n}&x" for n in range(2000)]
    sections = [text for page in plan_pages(" ".join(words)) for text in texts(page)]
    assert len(sections) > 1
    assert all(len(text) <= 3000 for text in sections)
    assert " ".join(sections).split(" ") == [word.replace("&", "&amp;") for word in words]


def test_pages_of_a_hostile_plan_are_safe_mrkdwn() -> None:
    plan = "\n\n".join(
        f"## {HOSTILE}\n- [{HOSTILE}](https://ok.example)\n```\n{HOSTILE}\n```" for _ in range(60)
    )
    for page in plan_pages(plan):
        for text in texts(page):
            assert_safe_mrkdwn(text)


ATOMS = [
    "# ", "## ", "- ", "1. ", "  ", "    ", "> ", "```", "~~~", "```py", "`", "**", "*", "_", "~~",
    "[", "]", "(", ")", "![", "<", ">", "&", "|", "---", "\n", "\n\n", "\\", "\t", "===",
    "https://a.example/x?y=1&z", "<!channel>", "<@U1>", "<https://e.example|b>", "word ", "&amp;",
    "| a | b |\n|---|---|\n", "x" * 300, " ",
]  # fmt: skip


@pytest.mark.parametrize("seed", range(4))
def test_random_markdown_always_gives_safe_balanced_blocks_within_limits(seed: int) -> None:
    rnd = random.Random(seed)
    for _ in range(40):
        markdown = "".join(rnd.choice(ATOMS) for _ in range(rnd.randint(0, 600)))
        mrkdwn = markdown_to_mrkdwn(markdown)
        assert_safe_mrkdwn(mrkdwn)
        assert mrkdwn_fences(mrkdwn) % 2 == 0
        for page in plan_pages(markdown, per_page=5):
            assert len(page) <= 5
            for text in texts(page):
                assert len(text) <= 3000
                assert mrkdwn_fences(text) % 2 == 0
                assert_safe_mrkdwn(text)
        budget = rnd.randint(300, 3000)
        (text,) = texts(plan_preview(markdown, budget=budget).blocks)
        assert len(text) <= budget
        assert not re.search(r"<(?=[!@#]|[A-Za-z][A-Za-z0-9+.\-]*:)", text)


def test_per_page_outside_a_modal_is_refused() -> None:
    with pytest.raises(ValueError, match="per_page"):
        plan_pages(PLAN, per_page=101)


# --- plan_diff ---------------------------------------------------------------------------------


def test_plan_diff_counts_added_and_removed_lines() -> None:
    diff = plan_diff("a\nb\nc\nd\ne\nf\n", "a\nB\nc\nd\ne\nf\ng\n")
    assert (diff.added, diff.removed) == (2, 1)
    assert diff.unified == (
        "--- previous plan\n+++ this plan\n@@ -1,6 +1,7 @@\n a\n-b\n+B\n c\n d\n e\n f\n+g"
    )


def test_plan_diff_counts_lines_that_look_like_diff_headers() -> None:
    diff = plan_diff("--- x\n", "+++ y\n")
    assert (diff.added, diff.removed) == (1, 1)


def test_identical_plans_have_an_empty_diff() -> None:
    assert plan_diff(PLAN, PLAN) == PlanDiff(0, 0, "")


def test_the_preview_writes_every_link_out_so_no_text_hides_its_address() -> None:
    plan = "See [your bank](https://evil.example/login) and ![chart](https://x.example/c.png).\n"
    assert reveal_links(plan) == (
        "See your bank (https://evil.example/login) and chart (https://x.example/c.png).\n"
    )


def test_links_inside_code_are_left_as_written() -> None:
    plan = "Use `[a](b)` here.\n```\n[x](https://y.example)\n```\n"
    assert reveal_links(plan) == plan


# --- disguised links (issue 12, defect 6): judged by a CommonMark parser -----------------------


def commonmark_links(markdown: str) -> list[tuple[str, str]]:
    """Each link and image a CommonMark parser finds in `markdown`: (what it shows, its address).

    Raw HTML counts as a link that shows nothing: a `markdown` block must never receive any.
    """
    from markdown_it import MarkdownIt

    parser = MarkdownIt("commonmark", {"html": True}).enable(["table", "strikethrough"])
    # Addresses as written: the text is judged, not how a browser would encode it.
    parser.validateLink = lambda url: True  # type: ignore[method-assign]
    parser.normalizeLink = lambda url: url  # type: ignore[method-assign]
    parser.normalizeLinkText = lambda link: link  # type: ignore[method-assign]
    found: list[tuple[str, str]] = []
    for block in parser.parse(markdown):
        if block.type == "html_block":
            found.append(("", block.content))
        for token in block.children or []:
            if token.type == "html_inline":
                found.append(("", token.content))
            elif token.type == "image":
                found.append((token.content, str(token.attrs["src"])))
        children = block.children or []
        for at, token in enumerate(children):
            if token.type == "link_open":
                depth, shown = 1, []
                for inner in children[at + 1 :]:
                    depth += inner.nesting
                    if depth == 0:
                        break
                    shown.append(inner.content)
                found.append(("".join(shown), str(token.attrs["href"])))
    return found


def hidden_addresses(markdown: str) -> list[tuple[str, str]]:
    """The links in `markdown` whose visible text is not their address."""
    return [(shown, href) for shown, href in commonmark_links(markdown) if shown != href]


DISGUISES = [
    "[your bank](https://evil.example 'title')",
    "[your bank](https://evil.example (title))",
    "[your [bank]](https://evil.example)",
    "[your\nbank](https://evil.example)",
    "[`bank`](https://evil.example)",
    "[your bank][r]\n\n[r]: https://evil.example",
    "[your bank][]\n\n[your bank]: https://evil.example",
    "[your bank]\n\n[your bank]: https://evil.example",
    "> [your bank][r]\n>\n> [r]: <https://evil.example> 'title'",
    "- [your\n  bank](https://evil.example)",
    "| a |\n|---|\n| [your bank](https://evil.example 'x') |",
    '<a href="https://evil.example">your bank</a>',
    '<div>\n<a href="https://evil.example">your bank</a>\n</div>',
    '<div>\n\n[your bank](https://evil.example "t")\n\n</div>',
]


def test_the_disguises_are_links_that_hide_their_address_to_a_commonmark_parser() -> None:
    assert all(hidden_addresses(markdown) for markdown in DISGUISES)


@pytest.mark.parametrize("markdown", DISGUISES)
def test_no_link_in_the_preview_hides_its_address(markdown: str) -> None:
    text = preview_text(markdown)
    assert hidden_addresses(text) == []
    assert "https://evil.example" in text


@pytest.mark.parametrize(
    ("markdown", "preview"),
    [
        ("[your bank](https://evil.example 'title')", "your bank (https://evil.example)"),
        ("[your bank](https://evil.example (title))", "your bank (https://evil.example)"),
        ("[a [b] c](https://evil.example)", "a [b] c (https://evil.example)"),
        ("[a\nb](https://evil.example)", "a\nb (https://evil.example)"),
        ("[`bank`](https://evil.example)", "`bank` (https://evil.example)"),
        (
            "[bank][r]\n\n[r]: https://evil.example",
            "bank (https://evil.example)\n\n\\[r]: https://evil.example",
        ),
        ("<https://evil.example/x>", "https://evil.example/x"),
        (
            '<a href="https://evil.example">bank</a>',
            f'<{ZWSP}a href="https://evil.example">bank<{ZWSP}/a>',
        ),
    ],
)
def test_the_preview_writes_each_link_form_out_as_text_and_address(
    markdown: str, preview: str
) -> None:
    assert preview_text(markdown) == preview


@pytest.mark.parametrize(
    ("raw", "neutral"),
    [
        ("&LT;!here&GT;", f"&LT;{ZWSP}!here&GT;"),
        ("&Lt;!here&gt;", f"&Lt;{ZWSP}!here&gt;"),
        ("&lt!here&gt;", f"&lt{ZWSP}!here&gt;"),
        ("&amp;lt;!here&amp;gt;", f"&amp;lt;{ZWSP}!here&amp;gt;"),
        ("<&#33;here>", f"<{ZWSP}&#33;here>"),
        ("<\\!here>", f"<{ZWSP}\\!here>"),
    ],
)
def test_no_entity_spelling_of_a_slack_token_survives_neutralize(raw: str, neutral: str) -> None:
    assert neutralize(raw) == neutral


@pytest.mark.parametrize(
    ("markdown", "mrkdwn"),
    [
        ("[bank][r]\n\n[r]: https://evil.example", "bank (<https://evil.example>)"),
        ("[bank][]\n\n[bank]: https://evil.example 'x'", "bank (<https://evil.example>)"),
        ("[bank]\n\n[bank]: <https://evil.example>", "bank (<https://evil.example>)"),
    ],
)
def test_every_link_form_in_the_modal_shows_its_address(markdown: str, mrkdwn: str) -> None:
    assert markdown_to_mrkdwn(markdown) == mrkdwn


@pytest.mark.parametrize(
    ("raw", "neutral"),
    [
        ("&#0060;!here>", f"&#0060;{ZWSP}!here>"),
        ("&#x3C;!here>", f"&#x3C;{ZWSP}!here>"),
        ("&#X003c;@U1>", f"&#X003c;{ZWSP}@U1>"),
    ],
)
def test_numeric_entity_spellings_are_broken_too(raw: str, neutral: str) -> None:
    assert neutralize(raw) == neutral


@pytest.mark.parametrize(
    ("markdown", "mrkdwn"),
    [
        ("[a\nb](https://evil.example)", "a b (<https://evil.example>)"),
        ("[`bank`](https://evil.example)", "`bank` (<https://evil.example>)"),
        ("[bank](https://evil.example 'x')", "bank (<https://evil.example>)"),
        ("[bank](https://evil.example (x))", "bank (<https://evil.example>)"),
    ],
)
def test_inline_link_forms_in_the_modal_show_their_address(markdown: str, mrkdwn: str) -> None:
    assert markdown_to_mrkdwn(markdown) == mrkdwn


def test_a_link_longer_than_the_parser_looks_ahead_still_shows_its_address() -> None:
    markdown = "[" + "bank " * 1000 + "](https://evil.example)"
    assert hidden_addresses(preview_text(markdown)) == []
    assert "(<https://evil.example>)" in markdown_to_mrkdwn(markdown)


def test_a_paragraph_of_nested_brackets_renders_at_once() -> None:
    markdown = "[[]" * 10_000 + "](https://evil.example)"
    assert hidden_addresses(preview_text(markdown)) == []
    assert_safe_mrkdwn(markdown_to_mrkdwn(markdown))


def test_a_link_inside_an_image_description_is_written_out_with_the_image() -> None:
    markdown = (
        "![a [b](https://evil.example) c](https://x.example/i.png) and [d](https://e.example)"
    )
    text = preview_text(markdown)
    assert hidden_addresses(text) == []
    assert "(https://x.example/i.png)" in text
    assert "d (https://e.example)" in text
