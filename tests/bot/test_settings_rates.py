"""Exchange rates in /settings: the user sees and sets the rates the negotiation guard compares a
foreign-currency offer with, per user, and the card for such an offer says which rate it used."""

from __future__ import annotations

import asyncio
from decimal import Decimal
from types import SimpleNamespace

from redis import Redis

from bench.negotiation_eval.scenarios import CAR
from deputy.agent.model.testing import FunctionModel, tool_call
from deputy.bot.account_handlers import AccountHandlers
from deputy.bot.services import BotServices
from deputy.core.accounts.user_settings import UserSettingsStore
from deputy.sandbox.negotiation.counterparts import Counterpart, Temperament
from deputy.sandbox.negotiation.operations import negotiation_catalog
from deputy.sandbox.negotiation.world import NegotiationWorld
from deputy.sentinel.stores.mandates import MandateStore
from deputy.testing.inline import InlineDeputy

ANN, BEN = 871, 872


class _Message:
    message_id = 1

    def __init__(self) -> None:
        self.replies: list[str] = []

    async def reply_text(self, text: str, **_: object) -> None:
        self.replies.append(text)


def settings(services: BotServices, user: int, words: str = "") -> str:
    """What the bot answers to `/settings <words>` from `user`."""
    message = _Message()
    update = SimpleNamespace(effective_user=SimpleNamespace(id=user), effective_chat=SimpleNamespace(id=user),
                             effective_message=message, callback_query=None)
    asyncio.run(AccountHandlers(services).settings(update, SimpleNamespace(args=words.split())))
    [answer] = message.replies
    return answer


def test_settings_show_the_rates_and_a_user_sets_their_own_which_no_one_else_gets(redis: Redis) -> None:
    services = BotServices.create(redis, "secret", None)
    shown = settings(services, ANN)
    assert "Exchange rates for negotiations: A$1 = $0.66 (mine), C$1 = $0.73 (mine), €1 = $1.08 (mine)" in shown
    assert "/settings rate EUR 1.10" in shown
    answer = settings(services, ANN, "rate eur 1.2")
    assert "I count 1 EUR as $1.2" in answer and "€1 = $1.2 (yours)" in answer
    assert settings(services, ANN, "rate CHF 1.13").count("1 CHF = $1.13 (yours)") == 1
    assert UserSettingsStore(redis).get(ANN).usd_per == {"EUR": Decimal("1.2"), "CHF": Decimal("1.13")}
    assert "€1 = $1.08 (mine)" in settings(services, BEN), "each user has their own rates"
    assert "€1 = $1.08 (mine)" in settings(services, ANN, "rate EUR default")
    assert UserSettingsStore(redis).get(ANN).usd_per == {"CHF": Decimal("1.13")}


def test_a_rate_that_cannot_be_right_gets_a_polite_answer_and_changes_nothing(redis: Redis) -> None:
    services = BotServices.create(redis, "secret", None)
    settings(services, ANN, "rate GBP 1.3")
    for words, says in [("rate euro 1.1", "isn't a currency code I know"), ("rate EUR lots", "isn't a number"),
                        ("rate EUR -1", "can't be right"), ("rate EUR 0", "can't be right"),
                        ("rate EUR 1e9", "can't be right"), ("rate EUR NaN", "can't be right"),
                        ("rate USD 2", "the dollar is always 1"), ("rate EUR", "I need a currency and a rate")]:
        answer = settings(services, ANN, words)
        assert says in answer and "/settings rate EUR 1.10" in answer, words
    assert UserSettingsStore(redis).get(ANN).usd_per == {"GBP": Decimal("1.3")}


def _offer_in_euros(redis: Redis, user: int) -> InlineDeputy:
    world = NegotiationWorld()
    world.add("market:c1", Counterpart("Alex", Temperament.honest, limit=15200, worst=11000))
    script = iter([tool_call("offer", to="market:c1", amount=12500, currency="EUR"), tool_call("reply", text="ok")])
    rig = InlineDeputy(redis, FunctionModel(lambda messages, tools: next(script)), negotiation_catalog(),
                       world.runners())
    MandateStore(redis).put(user, f"g-eur-{user}", CAR.model_copy(update={"max_step": Decimal(5000)}))
    rig.start(user, "Sell my Civic on the marketplace", goal_id=f"g-eur-{user}")
    return rig


def _approval_cards(rig: InlineDeputy, user: int) -> list:
    return [m for m in rig.cards() if m.chat_id == user and m.buttons and m.buttons[0][0].data]


def test_an_offer_in_another_currency_is_checked_at_the_users_rate_and_the_card_states_it(redis: Redis) -> None:
    services = BotServices.create(redis, "secret", None)
    settings(services, ANN, "rate EUR 1.20")
    # €12,500 is $15,000 at Ann's rate, inside her $14,000 floor: it waits on a card that says the rate.
    [card] = _approval_cards(_offer_in_euros(redis, ANN), ANN)
    assert "€1 = $1.2000 USD (rate from your /settings)" in card.text
    # At Deputy's own rate the same €12,500 is $13,500, under Ben's floor: refused outright, no card.
    rig = _offer_in_euros(redis, BEN)
    assert _approval_cards(rig, BEN) == []
    refused = [r.get("content") or "" for r in rig.goal(f"g-eur-{BEN}").messages if r.get("role") == "tool"]
    assert any("$13,500" in text and "past your limit" in text for text in refused)

