"""The executor's side of negotiation: hold each outgoing message of a negotiating goal to its
mandate, and keep the negotiation's record from what actually ran.

For a goal with a mandate (`deputy.sentinel.stores.mandates`), every message it sends (an email, a
marketplace message, a chat to a provider) is reviewed in one pure call
(`deputy.sentinel.negotiation.outgoing.review_outgoing`). After a message ran, its offer and the
round are recorded and the user gets the round's summary in the thread, with buttons to step in,
pause or stop; after a read of a counterpart's messages, their offer and any question the mandate
can't answer are recorded.

Everything that leaves this guard passes `_redacted` at its edge: the decision's reasons, the
audit entries (`_log`), the user's messages that quote a counterpart (`_send`) and the notes to the
agent (`_note`). Only the round's summary and the deal's news go out as written, because they tell
the user their own figures.
"""

from __future__ import annotations

import logging
import re
from typing import Any, Callable, Mapping

from redis import Redis

from deputy.core.accounts.user_settings import UserSettingsStore
from deputy.core.records.actions import Action
from deputy.core.records.effects import EffectClass, OperationResult
from deputy.core.records.deputy_notes import attach_note
from deputy.core.records.outbox import Button, Outbox, OutboxMessage
from deputy.connectors.custom import CustomConnectors, message_channels
from deputy.executor.negotiation_outlook import NegotiationOutlook
from deputy.executor.negotiation_moves import Channels, Runner, channel_action, move_runner
from deputy.sentinel.negotiation.commitments import Commitment, commitments_in
from deputy.sentinel.negotiation.freetext import agrees
from deputy.sentinel.negotiation.leaks import redact
from deputy.sentinel.negotiation.mandate import Mandate
from deputy.sentinel.negotiation.meaning import Embed, private_said
from deputy.sentinel.negotiation.money import Rates
from deputy.sentinel.negotiation.moves import compose, review_move
from deputy.sentinel.negotiation.outgoing import counterpart_of, is_message, move_of, review_outgoing, said
from deputy.sentinel.negotiation.review import review_offer, shown_offer
from deputy.sentinel.negotiation.state import NegotiationState, record_ours, record_theirs, their_messages, their_offers
from deputy.sentinel.negotiation.walkaway import conditions_met
from deputy.sentinel.policy import Decision, ReviewContext
from deputy.sentinel.textflow import string_fields
from deputy.sentinel.stores.audit import AuditLog
from deputy.sentinel.stores.mandates import MandateStore

log = logging.getLogger(__name__)
_EMAIL_FROM = re.compile(r"an email from ([\w.+-]+@[\w.-]+\w)")
class NegotiationGuard:
    def __init__(self, redis: Redis, outbox: Outbox, audit: AuditLog, clock: Callable[[], float],
                 parent_of: Callable[[str], str | None] = lambda goal_id: None,
                 rates: Callable[[int], Rates] | None = None, embed: Embed | None = None,
                 channels: Callable[[int], Channels] | None = None) -> None:
        self._store = MandateStore(redis)
        self._outbox = outbox
        self._outlook = NegotiationOutlook(self._store, outbox, clock)
        self._audit = audit
        self._clock = clock
        self._parent_of = parent_of
        # Each user's exchange rates (/settings rate): Deputy's defaults with the user's own over them.
        self._rates = rates or (lambda user_id: Rates.for_user(UserSettingsStore(redis).get(user_id).usd_per))
        self._embed = embed
        # Counterparts behind a service the user connected: the operation they marked as its message channel.
        self._channels = channels or (lambda user_id: message_channels(CustomConnectors(redis).list(user_id)))

    def _similar(self, text: str, items: list[str]) -> list[str]:
        return private_said(text, items, self._embed)

    def negotiation_goal(self, action: Action) -> str | None:
        """The goal whose mandate holds `action`: its own, or the nearest ancestor's (a sub-goal of a
        negotiation negotiates under the root's mandate, whatever id it was given)."""
        goal_id: str | None = action.goal_id
        for _ in range(5):
            if goal_id is None:
                return None
            if self._store.get(action.user_id, goal_id) is not None:
                return goal_id
            goal_id = self._parent_of(goal_id)
        return None

    def mandate(self, action: Action) -> tuple[Mandate, NegotiationState] | None:
        goal_id = self.negotiation_goal(action)
        return self._store.get(action.user_id, goal_id) if goal_id is not None else None

    def as_delivered(self, action: Action) -> Action | None:
        """For a move, the message that goes out (the channel action carrying the text code composed),
        to show the user exactly what is sent; None for anything else."""
        move = move_of(action)
        found = self.mandate(action) if move is not None else None
        if move is None or found is None:
            return None
        mandate, state = found
        return channel_action(action, compose(move, mandate, state.thread(move.to)), mandate,
                              self._channels(action.user_id))[1]

    def runner(self, action: Action, runners: Mapping[str, Runner],
               user_runner: Callable[[Action], Runner | None] | None = None) -> Runner | None:
        """For a move, the runner that sends the message code writes from it; None for anything else."""
        if move_of(action) is None:
            return None
        return move_runner(action, runners, self.mandate(action), self._channels(action.user_id), user_runner)

    def review(self, action: Action, decision: Decision, context: ReviewContext) -> Decision:
        """`decision` (the usual review) held to the goal's mandate, if it has one."""
        found = self.mandate(action) if is_message(action) else None
        if found is None:
            return decision
        mandate, state = found
        reviewed = review_outgoing(action, decision, context, mandate, state, self._clock(),
                                   self._rates(action.user_id), self._similar,
                                   counterpart=_channel_counterpart(action, self._channels(action.user_id)))
        self._log(action, mandate, "negotiation_review", action_id=action.id, counterpart=reviewed.counterpart,
                  verdict=reviewed.offer.verdict.value, reasons=reviewed.offer.reasons,
                  offer=shown_offer(reviewed.offer, mandate))
        # The combined reasons reach the audit trail, the agent and the action's record: never the limit.
        return reviewed.decision.model_copy(update={"reasons": _redacted(mandate, reviewed.decision.reasons)})

    def for_audit(self, action: Action, text: str) -> str:
        """`text` as the audit trail may keep it: for a negotiating goal, without the limit or anything private
        (a counterpart's message may say the very figure)."""
        found = self.mandate(action)
        return text if found is None else _redacted(found[0], text)

    # The edge: everything that leaves this guard is redacted here, and only here.

    def _send(self, mandate: Mandate, message: OutboxMessage) -> None:
        self._outbox.put(message.model_copy(update={"text": _redacted(mandate, message.text)}))

    def _log(self, action: Action, mandate: Mandate, event: str, **fields: Any) -> None:
        self._audit.append(action.user_id, event, self._clock(), **_redacted(mandate, fields))

    @staticmethod
    def _note(mandate: Mandate, notes: list[str]) -> str:
        return attach_note("", _redacted(mandate, " ".join(notes))) if notes else ""

    def card_note(self, action: Action) -> str:
        """The mandate, shown on every card of a negotiating goal (the user may see their own limit)."""
        found = self.mandate(action)
        return "" if found is None else "\n\n🤝 Mandate: " + found[0].summary()

    def ran(self, action: Action, result: OperationResult,
            authoritative: Callable[[Action], Action | None] = lambda a: a) -> str:
        """Record what actually happened: our message went out, or their messages were read. The action
        already ran: a failure to keep the record is logged, never turned into the action's failure.
        Returns a note for the agent (empty when there is nothing to say): a question only the user can
        answer, or a walk-away condition met, so the cooperative model asks the user instead of guessing."""
        try:
            found = self.mandate(action)
            if found is not None:
                return self._record(authoritative(action) or action, result, *found)
        except Exception:  # noqa: BLE001 - bookkeeping after the fact must not make a done action look undone
            log.exception("could not record negotiation round for action %s", action.id)
        return ""

    def _record(self, action: Action, result: OperationResult, mandate: Mandate, state: NegotiationState) -> str:
        now = self._clock()
        move = move_of(action)
        if is_message(action):
            counterpart = _channel_counterpart(action, self._channels(action.user_id)) or counterpart_of(action, mandate)
            if move is not None:
                checked = review_move(move, mandate, state, now, self._rates(action.user_id))
                text, offer, accepted = compose(move, mandate, state.thread(counterpart)), checked.lands, \
                    checked.accepts is not None
                if checked.accepts is not None:
                    offer = checked.accepts.total_in_mandate
            else:
                text = said(action)
                reviewed = review_offer(text, mandate, state, counterpart, now)
                offer, accepted = reviewed.offer, reviewed.accepts or Commitment.accept in commitments_in(text)
            goal_id = self.negotiation_goal(action) or action.goal_id
            recorded = self._store.update_state(
                action.user_id, goal_id,
                lambda m, s: record_ours(s, counterpart, offer, text, now, accepted=accepted))
            if recorded is not None:
                self._summary(action, mandate, recorded, counterpart, accepted)
                self._walk_away_notice(action, mandate, state, recorded, counterpart)
                self._outlook.after_round(action.user_id, action.chat_id, goal_id, mandate, recorded, counterpart)
        elif action.effect is EffectClass.read and result.untrusted_origin:
            counterpart = _reader_counterpart(action, result, mandate, self._channels(action.user_id))
            if counterpart is not None and result.summary.strip():
                goal_id = self.negotiation_goal(action) or action.goal_id
                rates = self._rates(action.user_id)
                recorded = self._store.update_state(
                    action.user_id, goal_id,
                    lambda m, s: record_theirs(s, counterpart, result.summary, m, now, rates=rates))
                if recorded is not None:
                    self._outlook.after_round(action.user_id, action.chat_id, goal_id, mandate, recorded, counterpart)
                    return self._after_reading(action, mandate, state, recorded, counterpart)
        return ""

    def _after_reading(self, action: Action, mandate: Mandate, before: NegotiationState, state: NegotiationState,
                       counterpart: str) -> str:
        """What the agent is told after reading them; a walk-away condition newly met is also told to the user."""
        thread = state.thread(counterpart)
        notes = []
        self._deal_news(action, mandate, before, state, counterpart)
        fresh = [o for o in thread.offers if o.id not in {x.id for x in before.thread(counterpart).offers}]
        for parsed in fresh:
            if parsed.certain:
                notes.append(f"Their offer {parsed.id}: " + "; ".join(parsed.deal_lines(mandate))
                             + f". To take it, use accept with their_offer_id {parsed.id}.")
            else:
                notes.append(f"Their message {parsed.id} has an amount I couldn't read for sure; the user was asked "
                             "what it means. Don't guess it.")
                self._unsure_notice(action, mandate, counterpart, parsed.quote, parsed.doubts)
        met = _met(mandate, state, counterpart, self._embed)
        if met:
            notes.append(f"The user's walk-away condition is met with {counterpart}: {'; '.join(met)}. Make no further offer "
                         "to them: tell the user with reply and wait for their decision.")
        self._walk_away_notice(action, mandate, before, state, counterpart)
        if thread.open_questions:
            notes.append("They asked something the mandate, the user's facts and memory don't answer: “"
                         + "”, “".join(thread.open_questions)
                         + "”. Don't answer it or guess: ask the user with reply (expects_answer=true).")
        return self._note(mandate, notes)

    def _unsure_notice(self, action: Action, mandate: Mandate, counterpart: str, quote: str, doubts: list[str]) -> None:
        shown = f"“{quote[:200]}” ({'; '.join(doubts)[:200]})"
        self._send(mandate, OutboxMessage(
            chat_id=action.chat_id, dedupe_key=f"{action.goal_id}:unsure:{counterpart}:{hash(quote) & 0xffffff}",
            text=f"❓ {counterpart} wrote an amount I can't read for sure: {shown}. I won't treat it as an offer "
                 "until you tell me what it means.",
            buttons=[[Button(text="Step in", sign=f"ge:{action.goal_id}")]]))

    def _deal_news(self, action: Action, mandate: Mandate, before: NegotiationState, state: NegotiationState,
                   counterpart: str) -> None:
        """After our acceptance, the deal is told as done only when their own reply agrees too."""
        if state.accepted is None or state.accepted_with != counterpart or before.thread(counterpart).history == \
                state.thread(counterpart).history:
            return
        reply = state.thread(counterpart).history[-1].text
        if state.thread(counterpart).history[-1].who != "them":
            return
        refused = re.search(r"\b(?:never agreed|didn'?t agree|no deal|not agreed|changed my mind|i'?ll pass|"
                            r"withdraw|not what i (?:said|offered))\b", reply, re.IGNORECASE)
        done = agrees(reply) and not refused
        price = mandate.money(state.accepted)
        text = (f"✅ Deal accepted by both sides with {counterpart} on {mandate.subject} at {price}." if done else
                f"⚠️ {counterpart} has not confirmed the deal on {mandate.subject} at {price}: they wrote "
                f"“{_redacted(mandate, reply[:200])}”. Nothing is agreed until they do.")
        # States the agreed price to the user, which may be their limit itself: only their reply is redacted.
        self._outbox.put(OutboxMessage(chat_id=action.chat_id, text=text, dedupe_key=f"deal:{action.id}"))

    def _walk_away_notice(self, action: Action, mandate: Mandate, before: NegotiationState, after: NegotiationState,
                          counterpart: str) -> None:
        """The user hears at once of a walk-away condition this message (theirs or ours) newly met."""
        fresh = [m for m in _met(mandate, after, counterpart, self._embed)
                 if m not in _met(mandate, before, counterpart, self._embed)]
        if not fresh:
            return
        shown = _redacted(mandate, "; ".join(fresh))
        self._send(mandate, OutboxMessage(
            chat_id=action.chat_id, dedupe_key=f"{action.goal_id}:walkaway:{counterpart}:{shown[:60]}",
            text=f"🚶 Walk-away condition met with {counterpart} on {mandate.subject}: {shown}. I make no further "
                 "offer to them unless you say so.",
            buttons=[[Button(text="Step in", sign=f"ge:{action.goal_id}"),
                      Button(text="Stop", sign=f"ns:{action.goal_id}")]]))
        self._log(action, mandate, "negotiation_walk_away", goal_id=action.goal_id, counterpart=counterpart, met=shown)

    def _summary(self, action: Action, mandate: Mandate, state: NegotiationState, counterpart: str,
                 accepted: bool) -> None:
        thread = state.thread(counterpart)
        if thread.our_last is None and not accepted:
            return
        latest = thread.offers[-1] if thread.offers else None
        theirs = mandate.money(thread.their_last) if thread.their_last is not None else "no offer yet"
        ours = mandate.money(thread.our_last) if thread.our_last is not None else "no offer"
        limit = "floor" if mandate.role.sells else "ceiling"
        gap = ""
        if latest is not None and not latest.certain:
            gap = f" Their latest message has an amount I couldn't read for sure: “{latest.quote[:120]}”."
        elif thread.their_last is not None:
            inside = not mandate.past_reservation(thread.their_last) or thread.their_last == mandate.reservation
            gap = " Their offer (all-in, in your mandate's terms) is inside your mandate." if inside \
                else f" Their offer is past your {limit}."
        head = ("📨 Acceptance sent with your approval; waiting for them to confirm" if accepted
                else f"🤝 Round {thread.rounds}/{mandate.max_rounds}")
        text = (f"{head} with {counterpart} on {mandate.subject}: they offered {theirs}; we offered {ours} "
                f"(target {mandate.money(mandate.target)}, {limit} {mandate.money(mandate.reservation)}).{gap}")
        buttons = [] if accepted else [
            [Button(text="Step in", sign=f"ge:{action.goal_id}"), Button(text="Adjust", sign=f"na:{action.goal_id}"),
             Button(text="Pause", sign=f"np:{action.goal_id}"), Button(text="Stop", sign=f"ns:{action.goal_id}")]]
        # The round's own message states the user's limit to the user: it goes out as written.
        self._outbox.put(OutboxMessage(chat_id=action.chat_id, text=text, buttons=buttons,
                                       dedupe_key=f"round:{action.id}"))
        self._log(action, mandate, "negotiation_round", goal_id=action.goal_id, counterpart=counterpart, ours=ours,
                  theirs=theirs, accepted=accepted)


def _met(mandate: Mandate, state: NegotiationState, counterpart: str, embed: Embed | None = None) -> list[str]:
    thread = state.thread(counterpart)
    return conditions_met(mandate.conditions, their_messages(thread), thread.rounds, their_offers(thread),
                          mandate.role.sells, embed)


def _channel_counterpart(action: Action, channels: Channels) -> str | None:
    """`<service>:<recipient>` for free text the agent sends through a service's marked message channel, so it
    is weighed in the same thread as the moves to that counterpart."""
    for channel in channels.values():
        if (action.connector, action.operation) == (channel.connector, channel.operation):
            recipient = dict(string_fields(action.arguments)).get(channel.recipient or "")
            return f"{channel.service}:{recipient.strip().lower()}" if recipient else channel.service
    return None


def _reader_counterpart(action: Action, result: OperationResult, mandate: Mandate,
                        channels: Channels | None = None) -> str | None:
    for target in action.targets:
        if mandate.allows_counterpart(target):
            return target.strip().lower()
    # A read from a service whose message channel the user marked: its counterparts are `<service>:<recipient>`,
    # the recipient named in the read's own arguments (the conversation it reads).
    for service in (channels or {}):
        if action.connector in ("openapi", "mcp") and action.operation.lower().startswith(service + "_"):
            named = [*(value for _, value in string_fields(action.arguments)), *action.targets]
            for address in [f"{service}:{value.strip().lower()}" for value in named] + [service]:
                if mandate.allows_counterpart(address):
                    return address
    sender = _EMAIL_FROM.search(result.untrusted_origin or "")
    if sender and mandate.allows_counterpart(sender.group(1)):
        return sender.group(1).lower()
    return None


def _redacted(mandate: Mandate, value: Any) -> Any:
    """`value` (a text, or texts inside lists and mappings) without the mandate's limit or private facts."""
    if isinstance(value, str):
        return redact(value, mandate.reservation, mandate.private)
    if isinstance(value, list):
        return [_redacted(mandate, item) for item in value]
    if isinstance(value, dict):
        return {key: _redacted(mandate, item) for key, item in value.items()}
    return value
