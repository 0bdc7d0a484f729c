"""The user's cards in /connections: by nickname, with expiry, the default marked, and a
press that makes another card the default (the one the next purchase is paid with)."""

from __future__ import annotations

import calendar

from pydantic import SecretStr
from redis import Redis

from deputy.bot.card_view import card_lines, press_card_default
from deputy.credential_page.forms import FORMS, validate
from deputy.core.accounts.card_preferences import CardPreferences
from deputy.executor.card_choice import choose_card
from deputy.vault import CredentialKind, KdfCost, Vault, list_credentials

USER = 5
JAN_2027 = calendar.timegm((2027, 1, 15, 12, 0, 0))


def cards(redis: Redis) -> list:
    vault = Vault(redis, SecretStr("k"), kdf=KdfCost(time_cost=1, memory_cost_kib=1024, parallelism=1))
    for handle, number, expiry, label in [("cred:card/everyday-visa", "4111111111111111", "12/30", "Everyday Visa"),
                                          ("cred:card/travel", "5555555555554444", "02/27", "Travel"),
                                          ("cred:card/old", "4012888888881881", "06/26", "Old card")]:
        vault.put(USER, handle, SecretStr(number), CredentialKind.card, label, {"holder": "D", "expiry": expiry})
    return list_credentials(redis, USER)


def test_cards_are_listed_by_nickname_with_expiry_and_the_default(redis: Redis) -> None:
    listed = cards(redis)
    lines = card_lines(listed, "cred:card/travel", JAN_2027)
    text = "\n".join(lines)
    assert "Everyday Visa ····1111, expires 12/30" in text
    assert "Travel ····4444, expires 02/27 – soon! (pays by default)" in text
    assert "Old card ····1881, expired 06/26" in text
    assert "4111111111111111" not in text


def test_pressing_a_card_makes_it_pay_the_next_purchase(redis: Redis) -> None:
    listed = cards(redis)
    toast, message = press_card_default(redis, "everyday-visa", USER)
    assert "Everyday Visa now pays by default" in message
    choice = choose_card(listed, "http://shop.example", CardPreferences(redis).get(USER), JAN_2027)
    assert choice.card.label == "Everyday Visa" and choice.heads_up is None
    assert "isn't connected" in press_card_default(redis, "gone", USER)[1]


def test_the_connect_form_checks_the_expiry_and_keeps_a_second_card_beside_the_first() -> None:
    form = FORMS["card"]
    base = {"number": "4111111111111111", "holder": "Demo"}
    assert validate(form, {**base, "expiry": "soon"})[1] == ["Expiry must look like MM/YY, for example 08/29."]
    assert validate(form, {**base, "expiry": "01/20"})[1] == ["This card has expired; please add a current one."]
    values, problems = validate(form, {**base, "expiry": "8/2031", "nickname": "Travel Card"})
    assert problems == []
    [entry] = form.entries(values)
    assert (entry.handle, entry.label, entry.public["expiry"]) == ("cred:card/travel-card", "Travel Card", "08/31")
    [plain] = form.entries(validate(form, {**base, "expiry": "08/31"})[0])
    assert plain.handle == "cred:card/main"


def test_connections_offer_each_shop_bought_from_its_own_card_and_the_choice_sticks(redis: Redis) -> None:
    from decimal import Decimal

    from deputy.bot.card_view import press_card_for_merchant, shop_choices
    from deputy.core.records.receipts import Receipt, ReceiptStore

    listed = [c for c in cards(redis) if c.label in ("Everyday Visa", "Travel")]
    ReceiptStore(redis).add(USER, Receipt(goal_id="g", action_id="a", merchant="http://shop.example:8001",
                                          order_id="O-1", total=Decimal("8.99"), currency="USD", items=[],
                                          card="Everyday Visa", token="t", paid_at=0))
    CardPreferences(redis).set_default(USER, "cred:card/everyday-visa")
    lines, buttons = shop_choices(redis, USER, listed)
    assert lines == ["• 🛒 At shop.example:8001: Everyday Visa (your default) pays"]
    [(text, sign)] = buttons
    assert text == "At shop.example:8001: pay with Travel" and sign.startswith("cm:")
    assert "Travel pays at http://shop.example:8001" in press_card_for_merchant(redis, sign[3:], USER)[1]
    choice = choose_card(listed, "http://shop.example:8001", CardPreferences(redis).get(USER), JAN_2027)
    assert choice.card.label == "Travel"
    assert shop_choices(redis, USER, listed)[0] == ["• 🛒 At shop.example:8001: Travel pays"]
