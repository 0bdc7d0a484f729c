"""Suggestions from interests: a new listing on the sandbox ticket site that matches an interest
becomes one card; nothing new means no work at all; "Not interested" suppresses similar listings;
the weekly cap holds. Real parts: the ticket and restaurant sites over HTTP, Redis, the local
embedding model. The clock is the test's; no language model exists in this test at all."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import timedelta
from decimal import Decimal
from typing import Any

import httpx
import pytest
from redis import Redis

from deputy.agent.suggestions.interests import InterestPrefs, InterestStore
from deputy.agent.suggestions.listings import read_listings
from deputy.agent.suggestions.suggestion_round import (SuggestionRound, booking_details, booking_words,
                                                      take_suggestion)
from deputy.core.infrastructure.clock import ManualClock
from deputy.core.records.outbox import OUTBOX_STREAM, Outbox, OutboxMessage
from deputy.memory.meaning import load_embedder
from deputy.sandbox import restaurants, tickets
from deputy.sandbox.tickets import OFFICE, Event, Section
from deputy.sandbox.webapp_common import SiteServer

USER = 97


@pytest.fixture(scope="module")
def sites() -> Iterator[tuple[Any, dict[str, str]]]:
    ticket_app, restaurant_app = tickets.create_app(), restaurants.create_app()
    servers = [SiteServer(ticket_app), SiteServer(restaurant_app)]
    urls = [server.start() for server in servers]
    yield ticket_app, {"tickets": urls[0], "restaurants": urls[1]}
    for server in servers:
        server.stop()


def cards(redis: Redis) -> list[OutboxMessage]:
    return [OutboxMessage.model_validate_json(f[b"json"]) for _, f in redis.xrange(OUTBOX_STREAM)]


def add_event(app: Any, event_id: str, title: str, venue: str, about: str, price: int, days: int) -> None:
    office = app[OFFICE]
    starts = office.clock().replace(hour=21, minute=0, second=0, microsecond=0) + timedelta(days=days)
    office.events[event_id] = Event(event_id, title, "concert", venue, starts, about,
                                    [Section("Tables", Decimal(price), "AB", 6)])


def test_a_new_matching_listing_is_one_card_and_not_interested_teaches(
    redis: Redis, sites: tuple[Any, dict[str, str]]
) -> None:
    app, urls = sites
    embedder = load_embedder()
    assert embedder is not None, "the local embedding model ships with the package"
    clock = ManualClock(1_800_000_000.0)
    round_ = SuggestionRound(redis, embedder, Outbox(redis), clock)
    with httpx.Client(trust_env=False) as client:
        def run() -> Any:
            return round_.run(read_listings(client, urls))

        first = run()  # what was listed before anyone opted in is the baseline
        assert first.new == first.listings > 0
        InterestStore(redis).save(USER, InterestPrefs(interests=["jazz", "italian food"], services=["tickets"],
                                                      per_week=2, chat_id=USER))
        quiet = run()
        assert (quiet.new, quiet.embedded, quiet.users, quiet.model_calls, quiet.cards) == (0, 0, 0, 0, 0), \
            "nothing new: no embedding, no user read, no model call"

        add_event(app, "jazz-trio", "Jazz Trio: Late Night Standards", "The Blue Room",
                  "A piano trio plays standards till late.", 40, days=3)
        add_event(app, "brass-band", "Brass Band Parade Warm-up", "Town Square", "Marching band rehearsal.", 5, 4)
        found = run()
        assert (found.new, found.cards) == (2, 1)
        [card] = cards(redis)
        assert card.text.startswith("💡 Jazz Trio: Late Night Standards at The Blue Room on ")
        assert ", 2 seats at 40.00 USD" in card.text and "“jazz”" in card.text
        assert [b.text for b in card.buttons[0]] == ["Book", "Not interested", "Less like this"]
        assert card.proactive, "held in quiet hours like any unprompted news"

        # "Not interested": the same kind of listing is not suggested again.
        suggestion = take_suggestion(redis, USER, card.buttons[0][1].sign.split(":")[1])
        InterestStore(redis).teach(USER, suggestion.meaning(), strong=True)
        clock.advance(86400)
        add_event(app, "jazz-trio-2", "Jazz Trio: Late Night Standards (second night)", "The Blue Room",
                  "A piano trio plays standards till late.", 40, days=5)
        assert run().cards == 0 and len(cards(redis)) == 1

        # Something else they like still comes; then the weekly cap of 2 stops the third.
        add_event(app, "sax-quartet", "Saxophone Quartet: Jazz on the Roof", "Skyline Bar",
                  "Bebop and swing from four saxophones.", 25, days=2)
        assert run().cards == 1
        clock.advance(86400)
        add_event(app, "jazz-big-band", "Big Band Jazz Night", "Concert Hall", "Swing classics.", 30, days=6)
        capped = run()
        assert (capped.cards, capped.capped) == (0, 1)
        assert len(cards(redis)) == 2


def test_book_starts_a_goal_whose_user_words_are_codes_not_the_listings(redis: Redis, sites: tuple[Any, dict[str, str]]) -> None:
    app, urls = sites
    clock = ManualClock(1_800_000_000.0)
    round_ = SuggestionRound(redis, load_embedder(), Outbox(redis), clock)
    with httpx.Client(trust_env=False) as client:
        round_.run(read_listings(client, urls))
        InterestStore(redis).save(USER, InterestPrefs(interests=["italian food"], services=["restaurants", "tickets"],
                                                      chat_id=USER))
        add_event(app, "opera-night", "Italian Opera Night: Arias from Puccini", "Opera House",
                  "Italian arias with a pasta supper.", 60, days=3)
        assert round_.run(read_listings(client, urls)).cards == 1
    [card] = cards(redis)
    suggestion = take_suggestion(redis, USER, card.buttons[0][0].sign.split(":")[1])
    words = booking_words(suggestion)
    assert words.startswith("Book 2 seats for me: the suggested tickets listing tickets:opera-night, on ")
    assert words.endswith(", at 60.00 USD each.") and "Puccini" not in words, "the service's words are not the user's"
    assert "Italian Opera Night: Arias from Puccini; Opera House" in booking_details(suggestion)
    assert take_suggestion(redis, USER, suggestion.id) is None, "one answer per card"


def test_one_worker_of_the_cluster_runs_each_round(redis: Redis, sites: tuple[Any, dict[str, str]]) -> None:
    from deputy.agent.suggestions.suggestion_loop import run_once

    _, urls = sites
    round_ = SuggestionRound(redis, load_embedder(), Outbox(redis))
    with httpx.Client(trust_env=False) as client:
        assert run_once(redis, client, urls, 60, round_) is True
        assert run_once(redis, client, urls, 60, round_) is False, "another worker holds this turn"


def test_a_card_counts_against_the_plans_background_work(redis: Redis) -> None:
    from deputy.agent.suggestions.listings import Listing
    from deputy.agent.watch.check_budget import CheckBudget

    clock = ManualClock(1_800_000_000.0)
    budget = CheckBudget(redis, per_day=1)
    round_ = SuggestionRound(redis, load_embedder(), Outbox(redis), clock, budget=budget)
    InterestStore(redis).save(USER, InterestPrefs(interests=["jazz"], services=["tickets"], chat_id=USER))
    assert budget.take(USER, clock())  # today's one background check went to a monitor
    jazz = Listing(id="tickets:jazz-x", service="tickets", title="Jazz Trio", about="piano jazz standards")
    report = round_.run([jazz])
    assert (report.cards, report.capped) == (0, 1) and cards(redis) == []
    clock.advance(86400)
    again = Listing(id="tickets:jazz-y", service="tickets", title="Jazz Quartet", about="saxophone jazz standards")
    assert round_.run([again]).cards == 1, "the next day's budget allows it"


def test_the_shops_and_the_marketplace_are_read_too_and_a_new_product_is_a_buy_card(redis: Redis) -> None:
    from deputy.sandbox import market, shop
    from deputy.sandbox.negotiation import site as marketplace
    from deputy.sandbox.shop import SHOP
    from deputy.sandbox.shop_model import Product

    shop_app = shop.create_app()
    servers = [SiteServer(shop_app), SiteServer(market.create_app()), SiteServer(marketplace.create_app())]
    urls = dict(zip(("shop", "market", "marketplace"), (server.start() for server in servers)))
    try:
        clock = ManualClock(1_800_000_000.0)
        round_ = SuggestionRound(redis, load_embedder(), Outbox(redis), clock)
        with httpx.Client(trust_env=False) as client:
            listed = read_listings(client, urls)
            services = {listing.service for listing in listed}
            assert services == {"shop", "market", "marketplace"}
            assert "marketplace:L-CIVIC" in {listing.id for listing in listed}
            round_.run(listed)
            InterestStore(redis).save(USER, InterestPrefs(interests=["specialty coffee"], services=["shop"],
                                                          chat_id=USER))
            shop_app[SHOP].products["pour-over-kit"] = Product(
                "pour-over-kit", "Pour-over coffee kit with ceramic dripper", "Kitchen", Decimal("34.00"), 5,
                "Brew specialty coffee by hand: dripper, filters and a gooseneck kettle.")
            assert round_.run(read_listings(client, urls)).cards == 1
    finally:
        for server in servers:
            server.stop()
    [card] = cards(redis)
    assert card.text.startswith("💡 Pour-over coffee kit with ceramic dripper at the Sandbox Shop, 34.00 USD")
    assert [b.text for b in card.buttons[0]] == ["Buy", "Not interested", "Less like this"]
    suggestion = take_suggestion(redis, USER, card.buttons[0][0].sign.split(":")[1])
    assert booking_words(suggestion) == "Buy one for me: the suggested shop listing shop:pour-over-kit, at 34.00 USD."


def test_listings_that_arrive_before_a_users_turn_are_suggested_at_that_turn(redis: Redis) -> None:
    from deputy.agent.suggestions.listings import Listing

    clock = ManualClock(1_800_000_000.0)
    round_ = SuggestionRound(redis, load_embedder(), Outbox(redis), clock)
    InterestStore(redis).save(USER, InterestPrefs(interests=["jazz"], services=["tickets"], chat_id=USER))
    assert round_.run([Listing(id="tickets:j1", service="tickets", title="Jazz Trio",
                               about="piano jazz standards")]).cards == 1
    clock.advance(3600)  # an hour later the user's daily turn is not due; a jazz night is listed
    late = round_.run([Listing(id="tickets:j2", service="tickets", title="Late Night Jazz Quartet",
                               about="saxophone jazz, bebop and swing")])
    assert (late.new, late.cards, late.held) == (1, 0, 1)
    clock.advance(20 * 3600)  # the next turn: nothing new now, but the held listing is looked at
    turn = round_.run([])
    assert (turn.new, turn.embedded, turn.users, turn.cards) == (0, 0, 1, 1)
    assert cards(redis)[-1].text.startswith("💡 Late Night Jazz Quartet")
    quiet = round_.run([])
    assert (quiet.users, quiet.cards) == (0, 0), "no one waits now: a round with nothing new reads no user"


def test_listings_are_read_through_the_egress_guard(sites: tuple[Any, dict[str, str]]) -> None:
    from deputy.agent.suggestions.suggestion_loop import listing_client

    _, urls = sites  # the sandbox sites listen on loopback: a private address
    with listing_client([]) as client:
        assert read_listings(client, urls) == [], "a private address the operator did not open is refused"
    opened = [url.removeprefix("http://").rstrip("/") for url in urls.values()]
    with listing_client(opened) as client:
        assert {listing.service for listing in read_listings(client, urls)} == {"tickets", "restaurants"}
