"""A scripted set of asks for the audit export's tests, and the rows the export makes of them.

Made on 2026-12-01 (UTC) but `late`, made the next day: a person's answer in an agent
session's thread, a rule's decision, a pending plan review at the top level, an expired
batch, and one a grant decided.
"""

from __future__ import annotations

from typing import Final

from bot.outcomes import Verdict
from bot.store import AskRecord, AskState, AskStore
from provider import (
    AskUserQuestionAnswer,
    AskUserQuestionAnswerItem,
    AskUserQuestionItem,
    AskUserQuestionOption,
    PlanReviewIntent,
    ToolApprovalIntent,
)

DAY: Final = 1796083200.0  # 2026-12-01T00:00:00Z
WORKSPACE: Final = "https://acme.slack.com/"
CHANNEL: Final = "C0AGENTS"
OTHER_CHANNEL: Final = "C0PRIVATE"
ALICE: Final = "U0ALICE"

_DB = AskUserQuestionItem(
    id="db",
    question="Which database?",
    options=[
        AskUserQuestionOption(label="Postgres (Recommended)"),
        AskUserQuestionOption(label="SQLite"),
    ],
)
_BASH = AskUserQuestionItem(
    id="bash",
    question="Run `ls`?",
    options=[AskUserQuestionOption(label="Allow"), AskUserQuestionOption(label="Deny")],
    intent=ToolApprovalIntent(allow="Allow", tool="Bash", input={"command": "ls"}),
)
_PLAN = AskUserQuestionItem(
    id="plan",
    question="Ship this plan?",
    detail="1. migrate\n2. deploy",
    options=[AskUserQuestionOption(label="Approve"), AskUserQuestionOption(label="Revise")],
    intent=PlanReviewIntent(approve="Approve"),
)
_REGIONS = AskUserQuestionItem(
    id="regions",
    question="Which regions?",
    options=[AskUserQuestionOption(label="eu"), AskUserQuestionOption(label="us")],
    multi_select=True,
)
_NOTE = AskUserQuestionItem(id="note", question='Anything else, "quoted", or, commas?')


def _answer(*items: AskUserQuestionAnswerItem) -> AskUserQuestionAnswer:
    return AskUserQuestionAnswer(answers=list(items))


ASKS: Final = [
    AskRecord(
        id="a1-person",
        questions=[_DB],
        created_at=DAY + 9 * 3600,
        agent_id="ci/run-7",
        agent_name="CI",
        channel=CHANNEL,
        thread_ts="1796115000.000100",
        message_ts=["1796115600.000200"],
        state=AskState.ANSWERED,
        verdict=Verdict.ANSWERED,
        answer=_answer(AskUserQuestionAnswerItem(id="db", selected=["Postgres (Recommended)"])),
        decided_by=ALICE,
        decided_at=DAY + 9 * 3600 + 12.5,
    ),
    AskRecord(
        id="a2-rule",
        questions=[_BASH],
        created_at=DAY + 10 * 3600,
        agent_id="deploy",
        channel=CHANNEL,
        state=AskState.ANSWERED,
        verdict=Verdict.ANSWERED,
        answer=_answer(AskUserQuestionAnswerItem(id="bash", selected=["Allow"])),
        decided_by="rule:reads",
        decided_at=DAY + 10 * 3600 + 0.004,
    ),
    AskRecord(
        id="a3-plan",
        questions=[_PLAN],
        created_at=DAY + 11 * 3600,
        channel=OTHER_CHANNEL,
        message_ts=["1796122800.000300"],
    ),
    AskRecord(
        id="a4-batch",
        questions=[_REGIONS, _NOTE],
        created_at=DAY + 12 * 3600,
        agent_id="ci/run-8",
        channel=CHANNEL,
        thread_ts="1796126400.000400",
        message_ts=["1796126400.000400"],
        state=AskState.FAILED,
        verdict=Verdict.EXPIRED,
        decided_at=DAY + 13 * 3600,
    ),
    AskRecord(
        id="a5-grant",
        questions=[_REGIONS, _NOTE],
        created_at=DAY + 13 * 3600,
        agent_id="ci/run-9",
        channel=CHANNEL,
        state=AskState.ANSWERED,
        verdict=Verdict.ANSWERED,
        answer=_answer(
            AskUserQuestionAnswerItem(id="regions", selected=["eu", "us"], custom="ap\nsouth"),
            AskUserQuestionAnswerItem(id="note", custom='yes, "really"'),
        ),
        decided_by="grant:g-1",
        decided_at=DAY + 13 * 3600 + 1,
    ),
    AskRecord(
        id="a6-late",
        questions=[_DB],
        created_at=DAY + 24 * 3600,
        agent_id="ci/run-10",
        channel=CHANNEL,
    ),
]

HEADER: Final = (
    "ask_id,agent,session,channel,kind,question,answer,decided_by,asked_at,decided_at,"
    "seconds_to_decide,rule_or_grant,permalink\r\n"
)
# The CSV of the first five, with permalinks built from WORKSPACE.
ROWS: Final = [
    "a1-person,ci,ci/run-7,C0AGENTS,question,Which database?,Postgres (Recommended),U0ALICE,"
    "2026-12-01T09:00:00.000Z,2026-12-01T09:00:12.500Z,12.500,,"
    "https://acme.slack.com/archives/C0AGENTS/p1796115600000200"
    "?thread_ts=1796115000.000100&cid=C0AGENTS\r\n",
    "a2-rule,deploy,deploy,C0AGENTS,tool-approval,Run `ls`?,Allow,rule:reads,"
    "2026-12-01T10:00:00.000Z,2026-12-01T10:00:00.004Z,0.004,rule:reads,\r\n",
    "a3-plan,,,C0PRIVATE,plan-review,Ship this plan?,,,2026-12-01T11:00:00.000Z,,,,"
    "https://acme.slack.com/archives/C0PRIVATE/p1796122800000300\r\n",
    'a4-batch,ci,ci/run-8,C0AGENTS,question,"regions: Which regions?\n'
    'note: Anything else, ""quoted"", or, commas?",,,2026-12-01T12:00:00.000Z,'
    "2026-12-01T13:00:00.000Z,3600.000,,"
    "https://acme.slack.com/archives/C0AGENTS/p1796126400000400\r\n",
    'a5-grant,ci,ci/run-9,C0AGENTS,question,"regions: Which regions?\n'
    'note: Anything else, ""quoted"", or, commas?","regions: eu, us, ap\n'
    'south\nnote: yes, ""really""",grant:g-1,2026-12-01T13:00:00.000Z,'
    "2026-12-01T13:00:01.000Z,1.000,grant:g-1,\r\n",
]


async def store_asks(store: AskStore, asks: list[AskRecord] = ASKS) -> None:
    """Add each scripted ask, as it stands, to `store`."""
    for record in asks:
        await store.add(record)
