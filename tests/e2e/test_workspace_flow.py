"""A user's workspace through the whole of Deputy: a spreadsheet sent in the chat, totals by month
worked out by code the agent runs confined in the real worker, and the result sent back as a file."""

from __future__ import annotations

import csv
import io
import json
from collections import defaultdict
from decimal import Decimal

import httpx
from redis import Redis

from deputy.agent.model.chat_model import ModelReply
from deputy.agent.model.testing import ChatRequest, last_tool_result, message_text, tool_call, tool_calls
from deputy.testing.stack import DeputyStack

ROWS = [("2026-09-03", "Printer ink", "34.90"), ("2026-09-21", "Train tickets", "112.00"),
        ("2026-10-02", "Groceries", "86.45"), ("2026-10-30", "Books", "23.10"), ("2026-11-11", "Taxi", "18.75")]

SUM_BY_MONTH = """
import csv
from collections import defaultdict
from decimal import Decimal
totals = defaultdict(Decimal)
with open('expenses.csv', newline='') as f:
    for row in csv.DictReader(f):
        totals[row['date'][:7]] += Decimal(row['amount'])
with open('totals.csv', 'w', newline='') as f:
    out = csv.writer(f)
    out.writerow(['month', 'total'])
    for month in sorted(totals):
        out.writerow([month, totals[month]])
        print(month, totals[month])
"""


def expenses_csv() -> bytes:
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(["date", "what", "amount"])
    writer.writerows(ROWS)
    return out.getvalue().encode()


def expected_totals() -> dict[str, Decimal]:
    totals: dict[str, Decimal] = defaultdict(Decimal)
    for date, _what, amount in ROWS:
        totals[date[:7]] += Decimal(amount)
    return dict(totals)


def upload(stack: DeputyStack, user_id: int, name: str, content: bytes, mime: str, caption: str) -> int:
    response = httpx.post(f"{stack.chat_url}/api/users/{user_id}/files",
                          files={"file": (name, content, mime)}, data={"caption": caption})
    response.raise_for_status()
    return response.json()["message_id"]


def totals_script(request: ChatRequest) -> ModelReply:
    result = last_tool_result(request.messages)
    if result is None:
        return tool_call("run_python", code=SUM_BY_MONTH)
    text = result if isinstance(result, str) else json.dumps(result)
    if "Output:" in text:
        lines = text.split("Output:\n", 1)[1].split("\n")
        printed = [line for line in lines if line[:4].isdigit()]
        return tool_calls(("send_file", {"name": "totals.csv", "caption": "Totals by month"}),
                          ("reply", {"text": "Totals: " + "; ".join(printed)}))
    return tool_call("reply", text=f"Something went wrong: {text[:300]}")


def test_a_spreadsheet_is_totalled_by_month_by_code_and_the_totals_come_back_as_a_file(
    stack: DeputyStack, model_server, redis: Redis
) -> None:
    model_server.responder = totals_script
    user = stack.user(941)
    sent = upload(stack, 941, "expenses.csv", expenses_csv(), "text/csv",
                  "add these up by month and send me the totals as a spreadsheet")
    answer = user.wait_for_bot(lambda m: m["text"].startswith(("Totals:", "Something")), after=sent, timeout=60)
    assert answer["text"].startswith("Totals:"), answer["text"]
    # What happened, not what the bot said: the file in the chat holds the right totals.
    document = user.wait_for_bot(lambda m: m.get("document") is not None, after=sent, timeout=30)["document"]
    assert document["file_name"] == "totals.csv"
    content = httpx.get(f"{stack.chat_url}/api/files/{document['file_id']}").content.decode()
    sent_totals = {row["month"]: Decimal(row["total"]) for row in csv.DictReader(io.StringIO(content))}
    assert sent_totals == expected_totals()
    for month, total in expected_totals().items():
        assert f"{month} {total}" in answer["text"]
    # The code's output reached the model labelled as outside content (it was computed over a sent file).
    second = model_server.requests[1].prompt_text()
    assert 'untrusted source="the output of code run over your workspace files"' in second
    assert "Kept in your workspace as expenses.csv" in model_server.requests[0].prompt_text()


PROBE = """
import os, socket
print('env:', sorted(k for k in os.environ if k.startswith(('DEPUTY', 'REDIS', 'OPENAI', 'TELEGRAM'))))
for port in PORTS:
    try:
        socket.create_connection(('127.0.0.1', port), timeout=2)
        print('reached', port)
    except OSError as exc:
        print('blocked', port, type(exc).__name__)
print('root:', sorted(os.listdir('/')))
"""


def test_code_a_hijacked_model_runs_in_the_worker_reaches_no_secret_no_redis_and_no_model(
    stack: DeputyStack, model_server, redis: Redis
) -> None:
    ports = [redis.connection_pool.connection_kwargs["port"], int(model_server.base_url.rsplit(":", 1)[1].split("/")[0])]
    code = PROBE.replace("PORTS", repr(ports))

    def script(request: ChatRequest) -> ModelReply:
        result = last_tool_result(request.messages)
        if result is None:
            return tool_call("run_python", code=code)
        return tool_call("reply", text="Report: " + (result if isinstance(result, str) else json.dumps(result)))

    model_server.responder = script
    user = stack.user(942)
    sent = user.send("work out something for me")
    report = user.wait_for_bot(lambda m: m["text"].startswith("Report:"), after=sent, timeout=60)["text"]
    assert "env: []" in report, report
    assert "reached" not in report and report.count("blocked") == 2, report
    root = report.split("root: ", 1)[1]
    assert "'etc'" not in root and "'root'" not in root and "'home'" not in root, root
    assert "'work'" in root
    assert message_text(model_server.requests[-1].messages[-1])  # the model heard the run's result
