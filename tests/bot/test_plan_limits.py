"""What a user reads about their plan in the chat: a refused goal, a heads-up once, /plan, invitations, floods."""

from __future__ import annotations

import asyncio
from types import SimpleNamespace

from redis import Redis
from rq import Queue

from deputy.bot import texts
from deputy.bot.handlers import Handlers
from deputy.bot.negotiation import NegotiationHandlers
from deputy.bot.plan_handlers import FLOOD_TEXT, PlanHandlers
from deputy.bot.secret_gate import without_secrets
from deputy.bot.services import BotServices
from deputy.core.records.payloads import AGENT_QUEUE
from deputy.core.accounts.plans import parse_plans
from deputy.core.accounts.user_settings import UserSettings, UserSettingsStore
from telegram.ext import ApplicationHandlerStop

USER = 4242
BOOK = parse_plans("""
default = "free"
upgrade = "Ask Sam for the Plus plan."
[plans.free]
title = "Free"
day = { goals = 5 }
[plans.plus]
title = "Plus"
""")


class _Message:
    message_id = 1

    def __init__(self, text: str) -> None:
        self.text = text
        self.replies: list[str] = []

    async def reply_text(self, text: str, **_: object) -> None:
        self.replies.append(text)


class _Bot:
    def __init__(self) -> None:
        self.sent: list[str] = []

    async def send_message(self, chat_id: int, text: str, **_: object) -> None:
        self.sent.append(text)


def _update(text: str, user: int) -> SimpleNamespace:
    return SimpleNamespace(effective_user=SimpleNamespace(id=user, first_name="Ann"),
                           effective_chat=SimpleNamespace(id=user), effective_message=_Message(text),
                           callback_query=None)


def send(services: BotServices, text: str, user: int = USER) -> list[str]:
    update = _update(text, user)
    asyncio.run(Handlers(services).text(update, None))
    # Unrelated goals in a row: whether one follows up the other is not what these tests look at.
    return [texts.without_continuing(reply) for reply in update.effective_message.replies]


def queued(redis: Redis) -> int:
    return len(Queue(AGENT_QUEUE, connection=redis).job_ids)


def test_a_goal_over_the_days_limit_is_refused_with_the_limit_the_reset_and_how_to_get_more(redis: Redis) -> None:
    services = BotServices.create(redis, "secret", None, plans=BOOK)
    UserSettingsStore(redis).save(USER, UserSettings(timezone="America/New_York"))
    answers = [send(services, f"book a table for {n}") for n in range(5)]
    assert all(a[0] == texts.ACK_NEW_GOAL for a in answers)
    assert answers[3][1:] == ["Heads up: 1 of today's 5 new goals left. It resets at midnight (America/New_York time)."]
    assert [len(a) for a in answers] == [1, 1, 1, 2, 1]  # said once, not at every goal
    refused = send(services, "one more please")
    assert len(refused) == 1 and refused[0] != texts.ACK_NEW_GOAL
    assert "today's new goals on your Free plan (limit 5)" in refused[0]
    assert "America/New_York" in refused[0] and "Ask Sam for the Plus plan." in refused[0]
    assert queued(redis) == 5  # nothing stored or queued for the refused goal
    assert len(services.goals.recent(USER, limit=20)) == 5


def test_the_operator_moving_a_user_to_a_bigger_plan_lets_them_go_on_at_once(redis: Redis) -> None:
    services = BotServices.create(redis, "secret", None, plans=BOOK)
    for n in range(5):
        send(services, f"goal {n}")
    assert send(services, "goal 6")[0] != texts.ACK_NEW_GOAL
    services.quotas.accounts.set_plan(USER, "plus")
    assert send(services, "goal 6") == [texts.ACK_NEW_GOAL]


def test_plan_shows_the_plan_and_todays_use(redis: Redis) -> None:
    services = BotServices.create(redis, "secret", None, plans=BOOK)
    send(services, "find me a dentist")
    update = _update("/plan", USER)
    asyncio.run(PlanHandlers(services).plan(update, None))
    [text] = update.effective_message.replies
    assert text.startswith("Your plan: Free") and "new goals: 1 of 5" in text and "Ask Sam" in text


def test_a_stranger_gets_in_with_an_invitation_code_and_not_without(redis: Redis) -> None:
    services = BotServices.create(redis, "secret", frozenset({1}), plans=BOOK)
    handlers, bot = Handlers(services), _Bot()
    context = SimpleNamespace(bot=bot)

    def gate(text: str, user: int) -> bool:
        try:
            asyncio.run(handlers.gate(_update(text, user), context))
            return True
        except ApplicationHandlerStop:
            return False

    assert not gate("/start", 77) and "invitation code" in bot.sent[-1]
    assert not gate("/start wrong-code", 77)
    code = services.quotas.accounts.invite("plus")
    assert gate(f"/start {code}", 77)
    assert gate("book dinner", 77)  # in for good, on the invitation's plan
    assert services.quotas.plan_of(77).title == "Plus"
    assert not gate(f"/start {code}", 78)  # the code was for one person
    # A code that looks like a generated password is still Deputy's own code, not a secret pasted by mistake.
    generated = services.quotas.accounts.invite("plus", code="Xk7_-pQ9aZ2w")
    assert gate(f"/start {generated}", 79)
    assert services.quotas.plan_of(79).title == "Plus"


def test_a_link_code_sent_back_to_deputy_is_not_taken_for_a_pasted_secret(redis: Redis) -> None:
    # Link codes that the secret scanner alone would take for a password (about one generated code in 1,300).
    services = BotServices.create(redis, "secret", None, plans=BOOK)
    handlers, bot = Handlers(services), _Bot()
    for code in ("WW5XHGHH", "PW9EMGD9", "WW44VMAK"):
        update = _update(f"/link {code}", USER)
        asyncio.run(handlers.gate(update, SimpleNamespace(bot=bot)))  # passes on to the /link handler
        assert update.effective_message.replies == [] and bot.sent == []
        assert without_secrets({"message": {"text": f"/link {code}"}})["message"]["text"] == f"/link {code}"
    # A password after another command is still taken out.
    update = _update("/remember my bank password is WW5XHGHH", USER)
    update.effective_chat = SimpleNamespace(id=USER, send_message=lambda text, **_: bot.send_message(USER, text))
    try:
        asyncio.run(handlers.gate(update, SimpleNamespace(bot=bot)))
        raise AssertionError("the password went through")
    except ApplicationHandlerStop:
        pass
    assert "WW5XHGHH" not in bot.sent[-1] and "password" in bot.sent[-1].lower()


def test_a_flood_of_messages_gets_one_polite_answer_and_is_not_taken(redis: Redis) -> None:
    services = BotServices.create(redis, "secret", None, plans=BOOK, messages_per_minute=3)
    services.clock = lambda: 600.0
    handlers, bot = Handlers(services), _Bot()
    context = SimpleNamespace(bot=bot)
    passed = []
    for n in range(6):
        try:
            asyncio.run(handlers.gate(_update(f"msg {n}", USER), context))
            passed.append(True)
        except ApplicationHandlerStop:
            passed.append(False)
    assert passed == [True, True, True, False, False, False]
    assert bot.sent == [FLOOD_TEXT]
    asyncio.run(handlers.gate(_update("hello", USER + 1), context))  # someone else is not held up
    services.clock = lambda: 661.0
    asyncio.run(handlers.gate(_update("later", USER), context))  # a minute on, the user is heard again


def test_a_file_over_the_plans_limit_is_not_kept(redis: Redis) -> None:
    services = BotServices.create(redis, "secret", None, plans=parse_plans(
        'default = "free"\n[plans.free]\ntitle = "Free"\nfiles = 1\n'))
    services.uploads.put(USER, "menu.txt", "text/plain", b"soup")
    message = _Message("")
    message.photo, message.caption, message.document = None, "what is this", SimpleNamespace(
        file_name="b.txt", mime_type="text/plain", file_size=4)
    update = SimpleNamespace(effective_user=SimpleNamespace(id=USER), effective_chat=SimpleNamespace(id=USER),
                             effective_message=message, callback_query=None)
    asyncio.run(Handlers(services).file(update, None))
    [answer] = message.replies
    assert "limit of 1 stored files" in answer and "kept for a week" in answer
    assert services.uploads.count(USER) == 1 and queued(redis) == 0


def test_connecting_one_service_more_than_the_plan_allows_is_refused_but_reconnecting_is_not(redis: Redis) -> None:
    from deputy.bot.account_handlers import AccountHandlers

    services = BotServices.create(redis, "secret", None, plans=parse_plans(
        'default = "free"\n[plans.free]\ntitle = "Free"\nservices = 1\n'))
    handlers = AccountHandlers(services)
    handlers._connected = lambda user_id: {"email"}  # the user has connected their email

    def connect(*args: str) -> str:
        update = _update("/connect " + " ".join(args), USER)
        asyncio.run(handlers.connect(update, SimpleNamespace(args=list(args))))
        return update.effective_message.replies[0]

    answer = connect("calendar")
    assert "limit of 1 connected services" in answer and "Disconnect one in /connections" in answer
    assert "private link" in connect("email")  # the one already connected may be connected again
    assert "limit of 1 connected services" in connect("mcp", "https://tools.example.org/mcp")


def test_negotiate_is_refused_on_a_plan_without_negotiation_and_works_on_one_with_it(redis: Redis) -> None:
    book = parse_plans("""
default = "free"
upgrade = "Ask Sam for the Plus plan."
[plans.free]
title = "Free"
capabilities = ["email"]
[plans.plus]
title = "Plus"
capabilities = ["email", "negotiation"]
""")
    services = BotServices.create(redis, "secret", None, plans=book)
    words = "sell my bike, asking $500, no less than $400"

    def negotiate() -> list[str]:
        update = _update("/negotiate " + words, USER)
        asyncio.run(NegotiationHandlers(services).negotiate(update, SimpleNamespace(args=words.split())))
        return update.effective_message.replies

    [refused] = negotiate()
    assert "Free plan doesn't include negotiating on your behalf" in refused and "Ask Sam" in refused
    services.quotas.accounts.set_plan(USER, "plus")
    [proposed] = negotiate()
    assert "Free plan" not in proposed and "$400" in proposed
