"""Paying for an approved purchase without the card ever leaving the vault.

A spend operation's arguments carry the placeholder `<payment_token>` where the service
expects payment. Only when the executor runs the approved action does it get a
single-use token bound to exactly the approved amount, currency and merchant, and put its
id in place of the placeholder; the agent, the model and the card never meet.

With a card issuer configured (`IssuerClient`), the issuer mints the token against the
card Deputy chose (`card_choice`) and keeps the signed cart mandate with it
(`mandates`); the issuer then refuses any charge that does not match. Without one, the
vault's own tokens are used (`vault.PaymentTokens`).
"""

from __future__ import annotations

import json
import re
import secrets
import time
from typing import Any, Callable

from deputy.agent.time.deadline_words import delivery_deadline
from deputy.agent.goals import GoalStore
from deputy.core.records.actions import Action
from deputy.core.records.effects import ConnectorError, EffectClass
from deputy.core.records.erasure import Owned, delete_keys
from deputy.core.records.handoff import AGENT_NOTE, HandOff
from deputy.core.records.outbox import Button, Outbox, OutboxMessage
from deputy.core.records.receipts import Receipt, ReceiptStore
from deputy.core.accounts.user_settings import UserSettingsStore
from deputy.core.records.card_expiry import parse_expiry
from deputy.core.accounts.card_preferences import CardPreferences
from deputy.connectors.travel.trip_store import travel_card_note
from deputy.connectors.web.checkout import CheckoutCard, offer_card, wants_card
from deputy.executor.card_choice import choose_card
from deputy.executor.cart_lines import CartLines
from deputy.executor.issuer_client import IssuerClient, IssuerRefused, MintedToken
from deputy.executor.offers import comparison, erase_goal_offers, record_offers
from deputy.executor.mandates import MandateSigner, mandate_terms, merchant_origin
from deputy.sentinel.spending import SpendingLimit
from deputy.sentinel.stores.action_store import ActionStore
from deputy.vault import CredentialInfo, CredentialKind, PaymentTokens, Vault, VaultError, list_credentials

PLACEHOLDER = "<payment_token>"
TOKEN_TTL_SECONDS = 15 * 60
_CARD_REF = "deputy:issuercard:{}:{}"
_MINTED = "deputy:minted:{}"
"""The token minted for an action (its terms and id, never a card number), for receipts."""


def wants_payment(arguments: Any) -> bool:
    if isinstance(arguments, dict):
        return any(wants_payment(value) for value in arguments.values())
    if isinstance(arguments, list):
        return any(wants_payment(value) for value in arguments)
    return arguments == PLACEHOLDER


def _replace(arguments: Any, token: str) -> Any:
    if isinstance(arguments, dict):
        return {key: _replace(value, token) for key, value in arguments.items()}
    if isinstance(arguments, list):
        return [_replace(value, token) for value in arguments]
    return token if arguments == PLACEHOLDER else arguments


class PaymentIssuer:
    def __init__(
        self,
        tokens: PaymentTokens,
        redis,
        *,
        issuer: IssuerClient | None = None,
        vault: Vault | None = None,
        mandates: MandateSigner | None = None,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self._tokens = tokens
        self._redis = redis
        self._issuer = issuer
        self._vault = vault
        self._mandates = mandates
        self._clock = clock
        self._outbox = Outbox(redis)

    def prepare(self, action: Action, idempotency_key: str, *, card_text: str = "", approval_id: str | None = None,
                chat_id: int | None = None, limit: SpendingLimit | None = None,
                items: list[str] | None = None) -> Action:
        """The action to run: with a fresh token where it asks for payment. Under a spending
        rule (`limit`) the token is capped at the rule's limit for that merchant, so the issuer
        refuses anything above it whatever the shop said the price was."""
        on_page = action.effect is EffectClass.spend and wants_card(action.arguments)
        if action.effect is not EffectClass.spend or not (wants_payment(action.arguments) or on_page):
            return action
        if action.amount is None or not action.currency:
            raise ConnectorError("This purchase doesn't say how much it costs, so I won't pay for it.")
        cards = [c for c in list_credentials(self._redis, action.user_id) if c.kind is CredentialKind.card]
        target = action.targets[0] if action.targets else action.connector
        if self._issuer is None:
            if on_page:
                raise ConnectorError("Paying on a web page needs a card issuer that makes single-use cards, and "
                                     "this Deputy has none set up, so nothing was paid.")
            return self._with_vault_token(action, cards, target, idempotency_key)
        merchant = merchant_origin(target)
        if limit is not None and (limit.merchant != merchant or limit.currency != action.currency.upper()
                                  or action.amount > limit.amount):
            raise ConnectorError("This purchase is not within your spending rule, so nothing was paid.")
        choice = choose_card(cards, merchant, CardPreferences(self._redis).get(action.user_id), self._clock())
        if choice.heads_up and chat_id is not None:
            expiry = choice.card.public.get("expiry", "")
            self._outbox.put(OutboxMessage(chat_id=chat_id, text=choice.heads_up, proactive=True,
                                           dedupe_key=f"card-expiry:{action.user_id}:{choice.card.handle}:{expiry}"))
        terms = mandate_terms(action, merchant, card_text, approval_id, self._clock(),
                              limit=limit.amount if limit else None, cart_lines=items)
        signature = self._mandates.sign(terms) if self._mandates else None
        issuer, currency = self._issuer, action.currency.upper()
        amount = limit.amount if limit is not None else action.amount

        def mint(card_ref: str) -> MintedToken:
            return issuer.mint(card_ref, merchant, amount, currency, TOKEN_TTL_SECONDS, terms, signature,
                               idempotency_key)

        try:
            token = mint(self._card_ref(action.user_id, choice.card))
        except IssuerRefused as refused:
            if refused.status != 404:
                raise
            # The issuer no longer knows the card (a new issuer account, a reset sandbox): enrol it again.
            token = mint(self._card_ref(action.user_id, choice.card, fresh=True))
        record = {"token": token.id, "card": choice.card.label, "merchant": merchant,
                  "rule": limit.rule_text if limit else ""}
        self._redis.set(_MINTED.format(action.id), json.dumps(record), ex=90 * 24 * 3600)
        if on_page:
            if token.virtual_card is None:
                raise ConnectorError("Your card issuer gave no single-use card for this payment, so nothing was paid.")
            # For this run only: the web runner takes it, fills the form, and it is gone.
            offer_card(CheckoutCard(number=token.virtual_card.number, cvc=token.virtual_card.cvc,
                                    expiry=token.virtual_card.expiry, name=choice.card.public.get("holder", ""),
                                    merchant=merchant, action_id=action.id))
            return action
        return action.model_copy(update={"arguments": _replace(action.arguments, token.id)})

    def _card_ref(self, user_id: int, card: CredentialInfo, fresh: bool = False) -> str:
        """The issuer's reference for this card, enrolling it the first time it pays (or again, `fresh`)."""
        key = _CARD_REF.format(user_id, f"{card.handle}:{card.created_at!r}")
        known = None if fresh else self._redis.get(key)
        if known:
            return known.decode() if isinstance(known, bytes) else known
        if self._vault is None or self._issuer is None:
            raise ConnectorError("Payments are not set up on this Deputy.")
        try:
            number = self._vault.get(user_id, card.handle)
        except VaultError as exc:
            raise ConnectorError(exc.user_message) from None
        expiry = parse_expiry(card.public.get("expiry", ""))
        text = f"{expiry[1]:02d}/{expiry[0] % 100:02d}" if expiry else ""
        ref = self._issuer.enroll(number, text, card.public.get("holder", ""))
        self._redis.set(key, ref)
        return ref

    def _with_vault_token(self, action: Action, cards: list[CredentialInfo], target: str, key: str) -> Action:
        if not cards:
            raise ConnectorError("You have no payment card connected. Add one with /connect card, then ask again.")
        try:
            token = self._tokens.issue(action.user_id, cards[0].handle, target, action.amount, action.currency,
                                       TOKEN_TTL_SECONDS, key)
        except VaultError as exc:
            raise ConnectorError(exc.user_message) from None
        return action.model_copy(update={"arguments": _replace(action.arguments, token.id)})

    def refusal_notice(self, action: Action, message: str, chat_id: int) -> OutboxMessage | None:
        """A purchase that failed: its unused token is cancelled at the issuer, and the user
        hears why from the chat, whatever the agent makes of it."""
        offer_card(None)
        if action.effect is not EffectClass.spend:
            return None
        minted = self._minted(action)
        if minted and self._issuer is not None:
            try:
                self._issuer.revoke(minted["token"])
            except ConnectorError:
                pass  # it still expires in minutes; the failure is what the user must hear about
        return OutboxMessage(chat_id=chat_id, dedupe_key=f"payment-failed:{action.id}",
                             text=f"💳 This purchase did not go through. {message}")


    def _minted(self, action: Action) -> dict[str, str] | None:
        raw = self._redis.get(_MINTED.format(action.id))
        return json.loads(raw) if raw else None

    def card_extra(self, action: Action) -> str:
        """What a purchase card adds to the guard's text: the offers compared in this goal (those
        delivered by the user's deadline, when their words for the goal set one)."""
        if action.effect is not EffectClass.spend:
            return ""
        if action.connector == "travel":
            return travel_card_note(self._redis, action.operation, action.user_id, action.arguments)
        goal = GoalStore(self._redis).get(action.goal_id)
        if goal is None:
            return comparison(self._redis, action.goal_id, action.user_id)
        zone = UserSettingsStore(self._redis).get(action.user_id).timezone
        deadline = delivery_deadline(goal.user_words(), goal.created_at, zone)
        return comparison(self._redis, action.goal_id, action.user_id, deadline, zone)

    def after_success(self, action: Action, summary: str) -> OutboxMessage | None:
        """Offers seen in a product search are remembered; a paid purchase gets a receipt,
        kept with its goal and sent to the chat."""
        offer_card(None)
        if action.effect is EffectClass.read:
            record_offers(self._redis, action, summary)
            return None
        minted = self._minted(action)
        if action.effect is not EffectClass.spend or minted is None or action.amount is None:
            return None
        if summary.startswith(AGENT_NOTE.split("(", 1)[0]):
            return None  # the bank wants the user to confirm first: no receipt for a payment not yet made
        start = summary.find("{")
        try:
            order = json.loads(summary[start:]) if start >= 0 else {}
        except ValueError:
            order = {}
        order = order if isinstance(order, dict) else {}
        lines = order.get("items") if isinstance(order.get("items"), list) else []
        items = [f"{line.get('quantity', 1)} × {line.get('name', '')}"[:100] for line in lines[:20]
                 if isinstance(line, dict)]
        return self._receipt(action, minted, str(order.get("order_id", ""))[:40], items)

    def after_confirmation(self, action: Action, landed: str) -> OutboxMessage | None:
        """A web payment the bank made the user confirm with a code: once the page confirms
        (it landed on the shop's order page), the receipt is kept with the goal as for any purchase."""
        minted = self._minted(action)
        if action.effect is not EffectClass.spend or minted is None or action.amount is None:
            return None
        if merchant_origin(landed) != minted["merchant"]:
            return None  # the code did not bring the page back to the shop: nothing confirmed
        found = re.search(r"/orders?/([A-Za-z0-9-]{1,40})", landed)
        if found is None:
            return None
        return self._receipt(action, minted, found.group(1), [])

    def _receipt(self, action: Action, minted: dict[str, str], order_id: str, items: list[str]) -> OutboxMessage:
        assert action.amount is not None
        receipt = Receipt(
            goal_id=action.goal_id, action_id=action.id, merchant=minted["merchant"], order_id=order_id,
            total=action.amount, currency=action.currency or "", items=items,
            card=minted["card"], token=minted["token"], paid_at=self._clock(),
        )
        ReceiptStore(self._redis).add(action.user_id, receipt)
        text = f"{receipt.line()}, paid with {receipt.card}."
        if minted.get("rule"):
            what = ", ".join(receipt.items) or "your order"
            text = (f"🛒 Bought {what} for {receipt.total} {receipt.currency} within your rule “{minted['rule']}”, "
                    f"without asking.\n{text}")
        return OutboxMessage(chat_id=action.chat_id, dedupe_key=f"receipt:{action.id}", text=text,
                             buttons=self._other_card_buttons(action, minted))

    def _other_card_buttons(self, action: Action, minted: dict[str, str]) -> list[list[Button]]:
        """With several cards: "pay this shop with <another card> from now on", one button each."""
        prefs = CardPreferences(self._redis)
        rows = []
        for card in list_credentials(self._redis, action.user_id):
            if card.kind is not CredentialKind.card or card.label == minted["card"]:
                continue
            offer_id = secrets.token_urlsafe(9)
            prefs.offer(action.user_id, minted["merchant"], card.handle, offer_id)
            rows.append([Button(text=f"Pay here with {card.label} from now on", sign=f"cm:{offer_id}")])
        return rows[:3]


def receipt_on_confirmation(redis, payments: PaymentIssuer) -> Callable[[HandOff, str], None]:
    """The hand-off hook: a payment the user confirmed with a code gets its receipt."""
    actions, outbox = ActionStore(redis), Outbox(redis)

    def confirmed(handoff: HandOff, landed: str) -> None:
        record = actions.get(handoff.action_id or "")
        message = payments.after_confirmation(record.action, landed) if record is not None else None
        if message is not None:
            outbox.put(message)

    return confirmed


def erase_user_payments(redis, owned: Owned) -> int:
    """The user's card preferences, issuer card references and minted-token records."""
    keys = [*redis.scan_iter(_CARD_REF.format(owned.user_id, "*")),
            *(_MINTED.format(action_id) for action_id in owned.action_ids)]
    return (CardPreferences(redis).erase(owned.user_id) + ReceiptStore(redis).erase(owned.user_id)
            + erase_goal_offers(redis, owned.goal_ids) + CartLines(redis, {}).erase(list(owned.action_ids))
            + delete_keys(redis, keys))

