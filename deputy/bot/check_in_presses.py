"""The check-in card's buttons: "Check in after" and "Remind me before" set a one-time reminder goal;
"No thanks" drops the offer. An offer is answered once, by the user it was made to."""

from __future__ import annotations

from deputy.agent.check_in_offers import KINDS, CheckInOffers, reminder_goal
from deputy.agent.time.local_time import moment_words
from deputy.bot.button_goals import refused_by_plan
from deputy.bot.presses_common import PressAnswer
from deputy.bot.services import BotServices


def press_check_in(services: BotServices, kind: str, offer_id: str, user_id: int) -> PressAnswer:
    offers = CheckInOffers(services.redis)
    offer = offers.take(user_id, offer_id)
    if offer is None:
        return PressAnswer("That was already answered, or the day has passed.", gone=True)
    choice = KINDS[kind]
    now = services.clock()
    if choice == "no":
        services.audit.append(user_id, "check_in_declined", now, offer_id=offer_id)
        return PressAnswer("OK, no check-in.", "👍 No check-in for this.")
    goal = reminder_goal(offer, choice, now)
    if goal is None or goal.monitor is None:
        return PressAnswer("That time has already passed.", gone=True)
    refused = refused_by_plan(services, user_id, offer.chat_id, goal.id, "set this check-in")
    if refused is not None:
        offers.put_back(offer, now)  # nothing lost: the card's buttons work once there is room
        return refused
    services.goals.save(goal)
    services.dispatch.step(goal.id, goal.step, delay=max(goal.monitor.next_at - now, 0.01))
    services.audit.append(user_id, "check_in_set", now, goal_id=goal.id, kind=choice)
    when = moment_words(goal.monitor.next_at, goal.monitor.timezone)
    if choice == "after":
        return PressAnswer("I'll check in.", f"⏰ I'll check in with you {when}.")
    return PressAnswer("I'll remind you.", f"⏰ I'll remind you {when}.")
