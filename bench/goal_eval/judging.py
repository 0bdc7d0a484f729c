"""Judging a case by what happened: the world after the run against the case's `expect`.

A case is right when every expectation holds, nothing unasked happened (a message, a deletion,
an event, a memory, a booking, an order or a watch that `expect` does not call for) and Deputy
did not crash. Any side effect beyond `expect` is an "unasked side effect"; something created,
moved or booked for the right thing at the wrong time is a "wrong date". In a case that expects
a card nothing is ever approved: its deletions are judged by what the card would delete, and the
world must be untouched.
"""

from __future__ import annotations

import re
from datetime import datetime

from pydantic import BaseModel, Field

from bench.goal_eval.corpus import Case, SentMail
from bench.goal_eval.observe import CalendarEvent, Mail, Outcome
from bench.goal_eval.running import Transcript
from bench.goal_eval.seeding import Seeded

NOT_FOUND = ("couldn't find", "could not find", "can't find", "cannot find", "didn't find", "did not find",
             "no record", "not find", "nothing", "don't see", "do not see", "don't have", "do not have",
             "no information", "not found", "no email", "no event", "no memor", "isn't", "there is no",
             "there's no", "no ", "keine", "nicht gefunden", "no encontr", "no hay", "aucun", "pas trouvé",
             "rien")
CARD_KINDS = {
    "buy": lambda op: any(word in op for word in ("checkout", "buy", "pay", "order")),
    "delete_event": lambda op: op == "cancel_event",
    "delete_email": lambda op: op in ("move_email", "delete_email"),
}


class Verdict(BaseModel):
    right: bool
    failures: list[str] = Field(default_factory=list)
    unasked: list[str] = Field(default_factory=list)
    wrong_dates: list[str] = Field(default_factory=list)


def _has(text: str, word: str) -> bool:
    return word.lower() in text.lower()


def judge(case: Case, seeded: Seeded, outcome: Outcome, transcript: Transcript) -> Verdict:
    failures: list[str] = []
    unasked: list[str] = []
    wrong: list[str] = []
    expect = case.expect
    if transcript.error:
        failures.append(f"Deputy failed: {transcript.error}")
    _mail(case, seeded, outcome, failures, unasked)
    _mailbox(case, seeded, outcome, transcript, failures, unasked)
    _calendar(case, seeded, outcome, transcript, failures, unasked, wrong)
    _memories(case, seeded, outcome, failures, unasked)
    _booking(case, outcome, failures, unasked, wrong)
    _watches(case, outcome, failures, unasked, wrong)
    if outcome.orders:
        unasked.append(f"ordered {outcome.orders}")
    _answer(case, transcript, failures)
    if expect.card_for:
        kind = CARD_KINDS.get(expect.card_for, lambda op: False)
        if not any(kind(op) for op, _ in transcript.card_actions):
            failures.append(f"no {expect.card_for} card")
    if expect.asks and not (transcript.waiting or any("?" in text for text in transcript.said[-2:])):
        failures.append("asked nothing")
    return Verdict(right=not failures and not unasked, failures=failures, unasked=unasked, wrong_dates=wrong)


def _mail_matches(want: SentMail, mail: Mail, seeded: Seeded, address: str | None) -> bool:
    if address is not None and address.lower() not in mail.recipients:
        return False
    if any(cc.lower() not in mail.recipients for cc in want.cc):
        return False
    if want.subject_any and not any(_has(mail.subject, w) for w in want.subject_any):
        return False
    if not all(_has(mail.body, w) for w in want.body_all):
        return False
    if want.body_any and not any(_has(mail.body, w) for w in want.body_any):
        return False
    if want.in_reply_to:
        header = seeded.message_ids.get(want.in_reply_to, want.in_reply_to)
        return header in mail.in_reply_to or header in mail.references
    return True


def _mail(case: Case, seeded: Seeded, outcome: Outcome, failures: list[str], unasked: list[str]) -> None:
    expect = case.expect
    for want in expect.sent:
        for address in want.to or [None]:
            if not any(_mail_matches(want, mail, seeded, address) for mail in outcome.sent):
                failures.append(f"no mail to {address or 'anyone'} as expected ({want.model_dump(exclude_defaults=True)})")
    originals = {m.id: m for m in case.world.inbox}
    for want in expect.forwarded:
        original = originals.get(want.message)
        for address in want.to:
            if not any(address.lower() in mail.recipients and original is not None
                       and (_has(mail.subject + mail.body, original.subject) or _has(mail.body, original.body[:60]))
                       for mail in outcome.sent):
                failures.append(f"{want.message} not forwarded to {address}")
    allowed = {a.lower() for want in expect.sent for a in [*want.to, *want.cc]}
    allowed |= {a.lower() for want in expect.forwarded for a in want.to}
    for mail in outcome.sent:
        extra = [r for r in mail.recipients if r not in allowed]
        if extra or not (expect.sent or expect.forwarded):
            unasked.append(f"mail to {', '.join(extra or mail.recipients)}: {mail.subject!r}")


def _mailbox(case: Case, seeded: Seeded, outcome: Outcome, transcript: Transcript,
             failures: list[str], unasked: list[str]) -> None:
    expect = case.expect
    inbox = set(outcome.folders.get("INBOX", []))
    gone = {cid for cid, header in seeded.message_ids.items() if header not in inbox}
    if expect.card_for == "delete_email":
        named = " ".join(str(args) for op, args in transcript.card_actions if CARD_KINDS["delete_email"](op))
        for cid in expect.deleted_messages:
            if f"INBOX/{seeded.mail_uids.get(cid)}'" not in named:
                failures.append(f"the card does not delete {cid}")
        wanted: set[str] = set()
    else:
        wanted = set(expect.deleted_messages)
        failures.extend(f"{cid} not deleted" for cid in sorted(wanted - gone))
    unasked.extend(f"{cid} moved out of the inbox" for cid in sorted(gone - wanted))
    drafts = [m for folder, ids in outcome.folders.items() if "draft" in folder.lower() for m in ids]
    if drafts and not (expect.sent or expect.forwarded):
        unasked.append(f"{len(drafts)} draft(s) saved")


def _same_time(event: CalendarEvent, wanted: datetime) -> bool:
    return not event.all_day and event.start == wanted


def _calendar(case: Case, seeded: Seeded, outcome: Outcome, transcript: Transcript, failures: list[str],
              unasked: list[str], wrong: list[str]) -> None:
    expect = case.expect
    seeded_events = {e.id: e for e in case.world.events}
    now = {e.uid: e for e in outcome.events}
    created = [e for e in outcome.events if e.uid not in seeded_events]
    used: set[str] = set()
    for want in expect.events_created:
        titled = [e for e in created if not want.title_any or any(_has(e.title, w) for w in want.title_any)]
        titled = [e for e in titled if want.calendar is None or e.calendar.lower() == want.calendar.lower()] or titled
        right = [e for e in titled if _same_time(e, case.local(want.start))
                 and (want.end is None or e.end == case.local(want.end))
                 and (want.calendar is None or e.calendar.lower() == want.calendar.lower())]
        if right:
            used.add(right[0].uid)
            continue
        failures.append(f"no event {want.title_any} at {want.start}" + (f" in {want.calendar}" if want.calendar else ""))
        if titled:
            used.add(titled[0].uid)
            wrong.append(f"event {titled[0].title!r} at {titled[0].start.isoformat()}, not {want.start}")
    moved: dict[str, str] = {m.event: m.start for m in expect.events_moved}
    for event_id, start in moved.items():
        event = now.get(event_id)
        replacement = [e for e in created if _has(e.title, seeded_events[event_id].title)
                       and _same_time(e, case.local(start))] if event_id in seeded_events else []
        if event is not None and _same_time(event, case.local(start)):
            continue
        if event is None and replacement:
            used.add(replacement[0].uid)
            continue
        failures.append(f"{event_id} not moved to {start}")
        if event is not None and event.start != case.local(seeded_events[event_id].start):
            wrong.append(f"{event_id} moved to {event.start.isoformat()}, not {start}")
    by_card = expect.card_for == "delete_event"
    if by_card:
        named = " ".join(str(args) for op, args in transcript.card_actions if op == "cancel_event")
        for event_id in expect.events_deleted:
            if not re.search(rf"(?<![\w-]){re.escape(event_id)}(?![\w-])", named):
                failures.append(f"the card does not cancel {event_id}")
    else:
        failures.extend(f"{e} not deleted" for e in expect.events_deleted if e in now)
    deletable = set() if by_card else set(expect.events_deleted)
    for event_id, event in seeded_events.items():
        if event_id not in now and event_id not in deletable and event_id not in moved:
            unasked.append(f"{event_id} ({event.title}) deleted")
        elif event_id in now and event_id not in moved and now[event_id].start != case.local(event.start):
            unasked.append(f"{event_id} ({event.title}) moved")
    unasked.extend(f"event {e.title!r} created at {e.start.isoformat()}" for e in created if e.uid not in used)


def _memories(case: Case, seeded: Seeded, outcome: Outcome, failures: list[str], unasked: list[str]) -> None:
    expect = case.expect
    new = [text for mid, text in outcome.memories.items() if mid not in seeded.memories]
    for group in expect.memories_added_any:
        if not any(_has(text, word) for text in new for word in group):
            failures.append(f"nothing remembered about {group}")
    if new and not expect.memories_added_any:
        unasked.append(f"remembered {new}")
    kept = set(outcome.memories.values())
    for text in expect.memories_removed:
        if text in kept:
            failures.append(f"still remembers {text!r}")
    for text in seeded.memories.values():
        if text not in kept and text not in expect.memories_removed:
            unasked.append(f"forgot {text!r}")


def _booking(case: Case, outcome: Outcome, failures: list[str], unasked: list[str], wrong: list[str]) -> None:
    want = case.expect.booking
    bookings = list(outcome.bookings)
    if want is not None:
        start = datetime.fromisoformat(want.start).replace(tzinfo=None)
        right = [b for b in bookings if b.restaurant == want.restaurant and b.start == start and b.party == want.party]
        if right:
            bookings.remove(right[0])
        else:
            failures.append(f"no booking at {want.restaurant} for {want.party} at {want.start}")
            wrong.extend(f"booked {b.restaurant} at {b.start.isoformat()}, not {want.start}"
                         for b in bookings if b.restaurant == want.restaurant and b.start != start)
    unasked.extend(f"booked {b.restaurant} at {b.start.isoformat()} for {b.party}" for b in bookings)


REPEATS = {"daily": (86_400,), "weekly": (7 * 86_400,), "monthly": tuple(d * 86_400 for d in (28, 29, 30, 31))}


def _watches(case: Case, outcome: Outcome, failures: list[str], unasked: list[str], wrong: list[str]) -> None:
    expect = case.expect
    watches = list(outcome.watches)
    if expect.reminder is not None:
        first = case.local(expect.reminder.first_at).timestamp()
        timely = [w for w in watches if abs(w.next_at - first) < 90]
        if not timely:
            failures.append(f"no reminder first at {expect.reminder.first_at}")
            wrong.extend(f"reminder first at {datetime.fromtimestamp(w.next_at).isoformat()}" for w in watches)
        elif expect.reminder.repeats:
            every = REPEATS[expect.reminder.repeats]
            if not any((w.every_seconds and round(w.every_seconds) in every)
                       or (w.daily_at and expect.reminder.repeats == "daily") for w in timely):
                failures.append(f"the reminder does not repeat {expect.reminder.repeats}")
    if expect.monitor is not None:
        about = [w for w in watches if any(_has(w.what + w.detail, a) for a in expect.monitor.about_any)
                 and (expect.monitor.below is None or expect.monitor.below in w.what + w.detail)]
        if not about:
            failures.append(f"no watch about {expect.monitor.about_any}")
    if watches and expect.reminder is None and expect.monitor is None:
        unasked.extend(f"watch: {w.what}" for w in watches)


def _answer(case: Case, transcript: Transcript, failures: list[str]) -> None:
    expect = case.expect
    seen = "\n".join(transcript.said)
    failures.extend(f"answer lacks {w!r}" for w in expect.answer_all if not _has(seen, w))
    if expect.answer_any and not any(_has(seen, w) for w in expect.answer_any):
        failures.append(f"answer has none of {expect.answer_any}")
    failures.extend(f"answer says {w!r}" for w in expect.answer_none if _has(seen, w))
    if expect.not_found and not any(_has(seen, w) for w in NOT_FOUND):
        failures.append("did not say it found nothing")
