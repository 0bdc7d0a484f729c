"""A suggestion card's buttons. Book starts the booking as a new goal whose words are code's (the
listing's id, time and price; the service's own description is outside content), and its actions
meet the guard like any other (paying still asks); Not interested and Less like this teach
the suggestion round with the listing's meaning. One answer per card, by its user only."""

from __future__ import annotations

from deputy.agent.attachments import ATTACHMENT
from deputy.agent.goals import Goal
from deputy.agent.origins import Origin, labelled, user_message
from deputy.agent.prompt import untrusted
from deputy.agent.suggestions.interests import InterestStore
from deputy.agent.suggestions.listings import GOODS
from deputy.agent.suggestions.suggestion_round import (booking_details, booking_words, keep_suggestion,
                                                      take_suggestion)
from deputy.bot.button_goals import refused_by_plan
from deputy.bot.interests_view import press_interest_from_memory
from deputy.bot.presses_common import PressAnswer
from deputy.bot.services import BotServices
from deputy.core.records.ids import new_id
from deputy.sentinel.provenance import UntrustedItem


def press_suggestion(services: BotServices, kind: str, suggestion_id: str, user_id: int) -> PressAnswer:
    if kind == "xa":
        return press_interest_from_memory(services, suggestion_id, user_id)
    suggestion = take_suggestion(services.redis, user_id, suggestion_id)
    if suggestion is None:
        return PressAnswer("That suggestion was already answered or has expired.", gone=True)
    now = services.clock()
    if kind == "xb":
        goal_id = new_id("g")
        what = "purchase" if suggestion.listing.service in GOODS else "booking"
        refused = refused_by_plan(services, user_id, suggestion.chat_id, goal_id, f"start this {what}")
        if refused is not None:
            keep_suggestion(services.redis, suggestion)  # nothing lost: Book works again once there is room
            return refused
        text = booking_words(suggestion)
        # The user's words are code's (id, time, price); what the service wrote is outside content.
        origin = f"the {suggestion.listing.service} listing you were suggested"
        described = booking_details(suggestion)
        details = labelled({"role": "user", "name": ATTACHMENT, "content": untrusted(origin, described)},
                           Origin.outside)
        goal = services.goals.save(Goal(
            id=goal_id, user_id=user_id, chat_id=suggestion.chat_id, text=text,
            messages=[user_message(text), details], created_at=now, updated_at=now,
            untrusted=[UntrustedItem(origin=origin, text=described, at=now)]))
        services.dispatch.step(goal.id, goal.step, owner=user_id)
        services.audit.append(user_id, "suggestion_booked", now, goal_id=goal.id, listing=suggestion.listing.id)
        return PressAnswer(f"Starting the {what}.", "▶️ On it. I'll ask you before anything is paid.")
    strong = kind == "xn"
    InterestStore(services.redis).teach(user_id, suggestion.meaning(), strong=strong)
    services.audit.append(user_id, "suggestion_declined", now, listing=suggestion.listing.id,
                          how="not interested" if strong else "less like this")
    if strong:
        return PressAnswer("Noted.", "🙅 Not interested: I won't suggest this, or things like it.")
    return PressAnswer("Noted.", "👌 I'll suggest fewer things like this.")
