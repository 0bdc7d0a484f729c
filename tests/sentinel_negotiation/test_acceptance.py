"""An acceptance is read from where the exchange stands, in any words: a deal on the table, and a reply
that leaves it standing (no refusal, no deferral, no other figure, not only a question)."""

from __future__ import annotations

from decimal import Decimal

import pytest

from deputy.sentinel.negotiation.acceptance import accepts_their_deal, deal_on_table

FLOOR = Decimal(14000)


@pytest.mark.parametrize(("theirs", "ours"), [
    ("Fine, I'll pay 15,200. Coming with cash Sunday.", "Thank you so much, really appreciate it! 🙏"),
    ("15,200 and I'll pick it up tomorrow. We good?", "🚗🔑💵"),
    ("I'll do 15,200. Just hit Buy Now.", "Buying it now."),
    ("Ofrezco 15.200, ¿te va?", "Me parece perfecto, nos vemos el sábado."),
    ("Ich zahle 15.200, passt das?", "Top, bis Samstag!"),
    ("我出15200，行吗？", "行，没问题。"),
    ("15,200 is my final. Unless I hear otherwise I'll bring the cash Saturday.", "Talk soon!"),
    ("Posso offrire 15.200, pagamento alla consegna.", "D'accordo, quando passi?"),
])
def test_a_reply_that_leaves_their_priced_offer_standing_is_an_acceptance(theirs: str, ours: str) -> None:
    assert accepts_their_deal(ours, theirs, Decimal(16000), FLOOR)


@pytest.mark.parametrize(("theirs", "ours"), [
    ("Is it still available?", "Yes, still for sale."),
    ("Can I come see it Saturday at 11?", "Ok, Saturday at 11 works for a look."),
    ("I can do 15,200.", "Thanks for the offer, but I can do 15,800."),
    ("I can do 15,200.", "No, that's too low for me."),
    ("I can do 15,200.", "Let me think it over and get back to you tomorrow."),
    ("I can do 15,200.", "Is that with the winter tyres?"),
    ("I'll think about your 15,800 and let you know.", "Sounds good, talk soon!"),
])
def test_a_reply_that_refuses_defers_counters_or_only_asks_is_not(theirs: str, ours: str) -> None:
    assert not accepts_their_deal(ours, theirs, Decimal(15800), FLOOR)


def test_without_a_figure_a_deal_is_on_the_table_only_when_one_stands() -> None:
    assert deal_on_table("So we're good? Deal?", Decimal(15800), FLOOR, standing=True)
    assert not deal_on_table("So we're good? Deal?", None, FLOOR, standing=False)
    assert not deal_on_table("Where are you located?", Decimal(15800), FLOOR)
