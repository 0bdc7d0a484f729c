"""A cheaper listing of an item a waiting checkout card would buy is offered once (Edit / Keep), by
code from the records: the card's cart, the shops' listings and the card's state. Real parts: the
runner, executor and guard inline over real Redis, both sandbox shops and the card issuer over HTTP;
the model is scripted. The listings' meaning plays no part here, so a stand-in embedder is used."""

from __future__ import annotations

import time
from decimal import Decimal

import httpx
import numpy as np
from redis import Redis

from deputy.agent.suggestions.listings import read_listings
from deputy.agent.suggestions.suggestion_round import SuggestionRound
from deputy.core.infrastructure.clock import ManualClock
from deputy.core.records.outbox import Outbox
from deputy.sandbox.shop import SHOP
from deputy.sentinel.stores.approvals import Choice
from shop_rig import CARD, USER, Rig, Script


class NoMeaning:
    def embed(self, texts: list[str]) -> np.ndarray:
        return np.zeros((len(texts), 384), dtype=np.float32)


def test_a_cheaper_listing_of_an_item_on_a_waiting_card_is_offered_once(redis: Redis) -> None:
    rig = Rig(redis, Script(), ManualClock(time.time()))
    try:
        rig.add_card("cred:card/main", CARD, "12/30", "Everyday Visa")
        rig.buy()  # 1 × "USB-C cable 1 m" at 8.99 USD in the Sandbox Shop: the card waits
        assert rig.orders() == []
        cable = rig.apps["market"][SHOP].products["usb-c-cable-1m"]
        round_ = SuggestionRound(redis, NoMeaning(), Outbox(redis), rig.clock)
        urls = {"shop": rig.shop_url, "market": rig.market_url}

        def run() -> int:
            with httpx.Client(trust_env=False) as client:
                return round_.run(read_listings(client, urls)).cheaper

        cable.price = Decimal("9.50")
        assert run() == 0, "dearer elsewhere: nothing to offer"
        cable.price = Decimal("6.49")
        assert run() == 1
        offer = rig.messages()[-1]
        assert offer.text == ("💡 “buy a 1m USB-C cable from the shop”: USB-C cable 1 m is 6.49 USD at Corner Market "
                              "(before any shipping), less than the 8.99 USD each on the card waiting for you. To buy "
                              "it there instead, press Edit and say so; press Keep and I go on as it is.")
        goal_id = offer.goal_id
        assert [(b.text, b.sign) for b in offer.buttons[0]] == [("Edit", f"ge:{goal_id}"), ("Keep", f"gk:{goal_id}")]
        assert offer.proactive
        assert run() == 0, "offered once"

        [card] = [c for c in rig.cards() if (c.buttons[0][0].data or "").startswith("ap1:")]
        rig.press(card.buttons[0][0].data.split(":")[1], USER, Choice.approve)  # the user keeps the shop's price
        assert [order["total"] for order in rig.orders()] == ["8.99"]
        cable.price = Decimal("5.99")
        assert run() == 0, "no card waits any more: nothing to offer"
    finally:
        rig.stop()
