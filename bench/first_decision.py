"""How often the first decision names a right kind: `python -m bench.first_decision [--split dev|frozen] [--base-url URL]`.

Each goal of the outcome corpus (`bench.goal_eval`, written by someone who had not read the code) is put
to the model as the first decision's constrained choice (`deputy.agent.model.first_decision`), exactly as
the worker sends it, and the kind it names is compared with the kinds its category allows (a question
about the user's own data may be answered from mail, memory or a service; a goal in German is judged by
what it asks). One short call per goal, so it runs in minutes where the outcome evaluation takes an hour.
Without `--base-url` the local model is built and started as `deputy run` does.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections import Counter, defaultdict

import httpx

from bench.goal_eval.corpus import Case, load
from deputy.agent.model.call_grammar import PREFILL, wire_body
from deputy.agent.model.first_decision import decision_request, kind_named
from deputy.agent.model.tool_parsing import parse_tool_calls

RIGHT_KINDS: dict[str, set[str]] = {
    "email_send": {"mail_write"},
    "email_reply": {"mail_act"},
    "email_forward": {"mail_act"},
    "email_delete": {"mail_act"},
    "calendar_add": {"calendar_add"},
    "calendar_move": {"calendar_change"},
    "calendar_cancel": {"calendar_change"},
    "calendar_read": {"calendar_read"},
    "own_data_questions": {"mail_read", "memory", "service", "calendar_read"},
    "general_knowledge": {"answer"},
    "memory": {"memory"},
    "must_ask": {"ask", "mail_write", "mail_act", "calendar_add", "calendar_change", "later", "service"},
    "bookings": {"service"},
    "purchases": {"service"},
    "reminders_monitors": {"later"},
    "follow_ups": {"mail_write", "mail_act", "calendar_add", "calendar_change", "later", "service"},
    "small_talk": {"answer"},
}
"""What a first step of each category may rightly be. `must_ask` accepts asking or the act itself: Deputy's own
code asks for a recipient, time or place nobody gave. Non-English goals are judged by `NON_ENGLISH`."""

SERVICES = ["restaurants", "shop"]
"""The services the outcome evaluation's user has connected (`bench.goal_eval.services`)."""


def right_kinds(case: Case) -> set[str]:
    if case.category != "non_english":
        return RIGHT_KINDS[case.category]
    expect = case.expect
    if expect.sent or expect.forwarded or expect.deleted_messages:
        return {"mail_write", "mail_act"}
    if expect.memories_added_any or expect.memories_removed:
        return {"memory"}
    if expect.events_created:
        return {"calendar_add"}
    if expect.events_moved or expect.events_deleted:
        return {"calendar_change"}
    if expect.reminder is not None or expect.monitor is not None:
        return {"later"}
    if expect.booking is not None or expect.card_for:
        return {"service", "mail_act", "calendar_change"}
    return {"answer", "mail_read", "calendar_read", "memory", "ask"}


def choose(base_url: str, model: str, text: str) -> tuple[str | None, float]:
    messages, tools = decision_request(text, services=SERVICES)
    body = {"model": model, **wire_body(messages, tools, constrain=True), "max_tokens": 40}
    started = time.monotonic()
    answer = httpx.post(base_url.rstrip("/") + "/chat/completions", json=body, timeout=600).json()
    content = answer["choices"][0]["message"].get("content") or ""
    whole = content if content.lstrip().startswith("<tool_call>") else PREFILL + content  # servers differ
    calls = parse_tool_calls(whole, ["choose_kind"]).calls
    kind = kind_named(calls[0].arguments.get("kind")) if calls else None
    return (kind.name if kind else None), time.monotonic() - started


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.first_decision", description=__doc__.splitlines()[0])
    parser.add_argument("--split", choices=("dev", "frozen", "all"), default="dev")
    parser.add_argument("--base-url", help="an OpenAI-compatible llama-server (default: start the local model)")
    parser.add_argument("--model", default="local")
    parser.add_argument("--limit", type=int, help="at most this many goals per category")
    args = parser.parse_args(argv)
    local = None
    base_url, model = args.base_url, args.model
    if base_url is None:
        from deputy.local_model.model import ensure_local_model
        from deputy.settings import Settings

        settings = Settings()
        local = ensure_local_model(settings.cache_path(), lambda line: print(line, flush=True),
                                   threads=settings.local_threads)
        base_url, model = local.base_url, local.model
    right: Counter[str] = Counter()
    total: Counter[str] = Counter()
    chosen: dict[str, Counter[str]] = defaultdict(Counter)
    seconds: list[float] = []
    try:
        for case in load(args.split, limit=args.limit):
            kind, took = choose(base_url, model, case.turns[0])
            seconds.append(took)
            total[case.category] += 1
            chosen[case.category][kind or "none"] += 1
            if kind in right_kinds(case):
                right[case.category] += 1
    finally:
        if local is not None:
            local.stop()
    print(f"First decision on the {args.split} split ({sum(total.values())} goals), model {model}")
    print("| category | right | kinds named |\n|---|---|---|")
    for category in sorted(total):
        named = ", ".join(f"{k} {n}" for k, n in chosen[category].most_common())
        print(f"| {category} | {right[category]}/{total[category]} | {named} |")
    seconds.sort()
    print(f"| **all** | **{sum(right.values())}/{sum(total.values())}** | median {seconds[len(seconds) // 2]:.1f} s "
          f"a choice, p90 {seconds[int(len(seconds) * 0.9)]:.1f} s |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
