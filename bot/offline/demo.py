"""The demo agent of offline mode: asks a choice, a batch and a plan review, as an agent would."""

from __future__ import annotations

import json
from collections.abc import Callable

from provider import (
    Agent,
    AgentRegistry,
    AskUserQuestionRequest,
    UserQuestionError,
    UserQuestionService,
)

PLAN = """## Plan: move sessions to Redis

1. Add a `SessionStore` interface with the current Postgres table behind it.
2. Implement it on Redis with a 24 h TTL; write to both stores for one release.
3. Switch reads to Redis behind the `sessions.redis` flag, then remove the dual write.

```python
class SessionStore(Protocol):
    async def get(self, sid: str) -> Session | None: ...
```

Rollback: turn the flag off; Postgres keeps every session until step 3 ends.
"""

ASKS: list[dict[str, object]] = [
    {
        "questions": [
            {
                "id": "database",
                "header": "Storage",
                "question": "Which database should the new billing service use?",
                "options": [
                    {"label": "Postgres (Recommended)", "description": "what the team runs today"},
                    {"label": "SQLite", "description": "one file, no server"},
                    {"label": "DynamoDB", "description": "managed, pay per request"},
                ],
            }
        ]
    },
    {
        "questions": [
            {
                "id": "regions",
                "question": "Which regions should it deploy to first?",
                "multi_select": True,
                "options": [
                    {"label": "eu-west-1"},
                    {"label": "us-east-1"},
                    {"label": "ap-south-1"},
                ],
            },
            {
                "id": "owner",
                "question": "Which team owns it?",
                "options": [{"label": "Payments"}, {"label": "Platform"}],
            },
            {"id": "name", "question": "What should the service be called?"},
        ]
    },
    {
        "questions": [
            {
                "id": "plan",
                "question": "May I carry out this plan?",
                "detail": PLAN,
                "options": [{"label": "Revise it"}, {"label": "Approve"}],
                "intent": {"kind": "plan-review", "approve": "Approve"},
            }
        ]
    },
]


async def run_demo(
    service: UserQuestionService, agents: AgentRegistry, say: Callable[[str], None]
) -> None:
    """Ask each demo question in turn through the seam and report what came back."""
    agent = Agent("demo-agent", name="Demo agent")
    detach = agents.enter(agent)
    try:
        for body in ASKS:
            request = AskUserQuestionRequest.model_validate({**body, "agent": agent})
            try:
                answer = await service.ask(request)
            except UserQuestionError as error:
                say(f"[demo agent] ask ended: {error.code}: {error.message}")
                continue
            say(f"[demo agent] got {json.dumps(answer.to_wire(), ensure_ascii=False)}")
        say("[demo agent] done. Press Ctrl-C to stop.")
    finally:
        detach()
