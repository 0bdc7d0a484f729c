"""Properties of the mandate check, over generated messages: no spelling of the limit, no amount past it,
and no acceptance ever goes out without the user."""

from __future__ import annotations

from decimal import Decimal

from hypothesis import given, settings, strategies as st

from deputy.sentinel.negotiation import Mandate, MandateStatus, NegotiationState, OfferVerdict, Role, record_ours, review_offer

_ONES = ["", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve",
         "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen"]
_TENS = ["", "", "twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety"]


def _under_thousand(n: int) -> str:
    parts = []
    if n >= 100:
        parts.append(f"{_ONES[n // 100]} hundred")
        n %= 100
    if n >= 20:
        parts.append(_TENS[n // 10] + (f"-{_ONES[n % 10]}" if n % 10 else ""))
    elif n:
        parts.append(_ONES[n])
    return " ".join(parts)


def in_words(n: int) -> str:
    thousands, rest = divmod(n, 1000)
    head = f"{_under_thousand(thousands)} thousand" if thousands else ""
    return " ".join(p for p in (head, _under_thousand(rest)) if p)


def spellings(n: int) -> list[str]:
    forms = [str(n), f"{n:,}", f"{n:,}".replace(",", " "), f"{n:,}".replace(",", "."), f"${n:,}", f"{n:,} USD",
             f"{n} dollars", in_words(n), f"{in_words(n)} dollars", " ".join(str(n)), "-".join(str(n)),
             f"${n:,}.00", f"USD {n}"]
    if n % 1000 == 0:
        forms += [f"{n // 1000}k", f"{n // 1000}K", f"${n // 1000}k", f"{n // 1000} grand", f"{in_words(n // 1000)} grand"]
    elif n % 100 == 0:
        forms += [f"{n / 1000:.1f}k"]
    return forms


_FILLER = st.sampled_from([
    "", "Hi there. ", "Thanks for the message! ", "Honestly, ", "Look, the car is in great shape. ",
    "I'm Sam's AI assistant. ", "As I said before, ",
])
_FRAMES = st.sampled_from([
    "{} is my lowest.", "I can do {}.", "How about {}?", "My floor is {}.", "Would you take {}?", "{}", "Final: {}.",
    "I'd let it go for {} if you come today.", "Can't go below {}, sorry.",
])


def seller(reservation: int) -> Mandate:
    return Mandate(subject="the car", role=Role.sell, target=Decimal(reservation + 3000), reservation=Decimal(reservation),
                   opening=Decimal(reservation + 5000), max_step=Decimal(10_000), max_rounds=50,
                   counterparts=["market:*"], status=MandateStatus.active)


def talked() -> NegotiationState:
    return record_ours(NegotiationState(), "market:c1", None, "Hi, I'm an AI assistant.", 0)


reservations = st.integers(min_value=2, max_value=60).map(lambda k: k * 500) | st.integers(1000, 60_000)


@settings(max_examples=300, deadline=None)
@given(reservation=reservations, data=st.data(), before=_FILLER, frame=_FRAMES)
def test_the_reservation_price_in_any_spelling_is_never_allowed(reservation, data, before, frame) -> None:
    form = data.draw(st.sampled_from(spellings(reservation)))
    text = before + frame.format(form)
    result = review_offer(text, seller(reservation), talked(), "market:c1", 0)
    assert result.verdict is not OfferVerdict.allow, text


@settings(max_examples=300, deadline=None)
@given(reservation=reservations, below=st.integers(1, 5000), data=st.data(), before=_FILLER, frame=_FRAMES)
def test_any_amount_past_the_floor_is_never_allowed(reservation, below, data, before, frame) -> None:
    amount = max(reservation - below, 1)
    if amount < reservation / 20:
        amount = reservation - 1
    form = data.draw(st.sampled_from(spellings(amount)))
    text = before + frame.format(form)
    result = review_offer(text, seller(reservation), talked(), "market:c1", 0)
    assert result.verdict is not OfferVerdict.allow, text


@settings(max_examples=200, deadline=None)
@given(reservation=reservations, above=st.integers(1, 4000), before=_FILLER,
       accept=st.sampled_from(["Deal.", "It's a deal!", "I accept.", "Agreed, {}.", "Sold at {}!", "You've got a deal at {}.",
                               "OK, I'll take it: {}.", "Let's do it at {}.", "deal — {}"]))
def test_an_acceptance_never_goes_out_without_the_user(reservation, above, before, accept) -> None:
    text = before + accept.format(f"${reservation + above:,}")
    result = review_offer(text, seller(reservation), talked(), "market:c1", 0)
    assert result.verdict is not OfferVerdict.allow, text
