#!/usr/bin/env python3
"""Validate goals.json. Usage: python3 check.py [path]. Exit code 1 on errors."""
import collections
import datetime as dt
import json
import os
import re
import sys
from zoneinfo import ZoneInfo

PATH = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(os.path.abspath(__file__)), "goals.json")

CATEGORIES = {
    "email_send": 15, "email_reply": 12, "email_forward": 8, "email_delete": 8,
    "calendar_add": 15, "calendar_move": 10, "calendar_cancel": 8, "calendar_read": 12,
    "own_data_questions": 20, "general_knowledge": 15, "memory": 12, "must_ask": 12,
    "bookings": 10, "purchases": 10, "reminders_monitors": 10, "follow_ups": 10,
    "non_english": 24, "small_talk": 10,
}
REQUIRED = ["id", "category", "split", "language", "now", "zone", "user", "world", "turns", "expect", "notes"]
WORLD_KEYS = {"contacts", "inbox", "calendars", "events", "memories", "shop", "orders", "restaurants"}
EXPECT_KEYS = {"sent", "forwarded", "deleted_messages", "events_created", "events_moved", "events_deleted",
               "memories_added_any", "memories_removed", "booking", "card_for", "reminder", "monitor",
               "answer_all", "answer_any", "answer_none", "asks", "not_found", "no_side_effects"}
CARDS = {"buy", "delete_email", "delete_event", "send_email", "book"}
SIDE_EFFECT_KEYS = {"sent", "forwarded", "deleted_messages", "events_created", "events_moved", "events_deleted",
                    "booking", "reminder", "memories_added_any", "memories_removed"}

errors, warnings = [], []


def err(cid, m):
    errors.append(f"{cid}: {m}")


def warn(cid, m):
    warnings.append(f"{cid}: {m}")


def parse_local(s):
    d = dt.datetime.fromisoformat(s)
    return d


# ---- independent relative-date resolver (does not share code with the builder) ----
WEEKDAYS = {
    0: ["monday", "montag", "lunes", "lundi"],
    1: ["tuesday", "dienstag", "martes", "mardi"],
    2: ["wednesday", "mittwoch", "miércoles", "miercoles", "mercredi"],
    3: ["thursday", "donnerstag", "jueves", "jeudi"],
    4: ["friday", "freitag", "viernes", "vendredi"],
    5: ["saturday", "samstag", "sábado", "sabado", "samedi"],
    6: ["sunday", "sonntag", "domingo", "dimanche"],
}
NUMS = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "ten": 10, "fourteen": 14}


def relative_dates(text, today):
    """Return the set of dates the text refers to via relative phrases, or None if it has none."""
    t = text.lower()
    # phrases that name a date that is not relative to today, or a "tomorrow" that is content, not scheduling
    t = re.sub(r"first \w+ of \w+", " ", t)
    t = re.sub(r"\bif [^.?!]*\btomorrow\b", " ", t)
    found = []
    if re.search(r"day after tomorrow|übermorgen|pasado mañana|après-demain", t):
        found.append(today + dt.timedelta(days=2))
        t = re.sub(r"day after tomorrow|übermorgen|pasado mañana|après-demain", " ", t)
    if re.search(r"\btomorrow\b|\bmorgen\b|\bmañana\b|\bdemain\b", t) and "to the day after" not in t:
        found.append(today + dt.timedelta(days=1))
    elif "to the day after" in t and re.search(r"\btomorrow", t):
        found.append(today + dt.timedelta(days=2))  # "tomorrow's X to the day after"
    if re.search(r"\btoday\b|\btonight\b|\bheute\b|\bhoy\b|\baujourd'hui\b|\bce soir\b", t) and not re.search(r"from today", t):
        found.append(today)
    m = re.search(r"\bin (\d+|\w+) days\b", t)
    if m:
        k = int(m.group(1)) if m.group(1).isdigit() else NUMS.get(m.group(1))
        if k:
            found.append(today + dt.timedelta(days=k))
    if re.search(r"two weeks from today|in two weeks|in 2 weeks", t):
        found.append(today + dt.timedelta(days=14))
    next_week = bool(re.search(r"next week|nächste woche|la semana que viene|semaine prochaine", t))
    for k, names in WEEKDAYS.items():
        for nm in names:
            if re.search(r"(?<![\w-])" + re.escape(nm) + r"(?![\w])", t):
                delta = (k - today.weekday()) % 7 or 7
                d = today + dt.timedelta(days=delta)
                if next_week:
                    # the weekday inside next ISO week
                    monday_next = today + dt.timedelta(days=7 - today.weekday())
                    d = monday_next + dt.timedelta(days=k)
                found.append(d)
                break
    return set(found) if found else None


def expected_dates(exp):
    out = []
    for e in exp.get("events_created", []):
        out.append(("events_created", e.get("start")))
    for e in exp.get("events_moved", []):
        out.append(("events_moved", e.get("start")))
    if "booking" in exp:
        out.append(("booking", exp["booking"].get("start")))
    if "reminder" in exp:
        out.append(("reminder", exp["reminder"].get("first_at")))
    return [(k, parse_local(v)) for k, v in out if v]


def main():
    with open(PATH, encoding="utf-8") as f:
        cases = json.load(f)
    if not isinstance(cases, list):
        print("goals.json must be a list")
        return 1
    ids = collections.Counter(c.get("id") for c in cases)
    for i, n in ids.items():
        if n > 1:
            err(i, f"duplicate id ({n}x)")
    per_cat = collections.Counter()
    per_split = collections.Counter()
    per_cat_split = collections.defaultdict(collections.Counter)
    per_lang = collections.Counter()
    first_turns = collections.defaultdict(list)
    rel_checked = 0

    for c in cases:
        cid = c.get("id", "?")
        for k in REQUIRED:
            if k not in c:
                err(cid, f"missing key {k}")
        if errors and errors[-1].startswith(cid + ": missing"):
            continue
        cat = c["category"]
        if cat not in CATEGORIES:
            err(cid, f"unknown category {cat}")
        if not cid.startswith(cat + "-"):
            err(cid, "id does not start with category")
        if c["split"] not in ("frozen", "dev"):
            err(cid, f"bad split {c['split']}")
        # frozen rule: odd-numbered cases within each category
        try:
            num = int(cid.rsplit("-", 1)[1])
            want = "frozen" if num % 2 == 1 else "dev"
            if c["split"] != want:
                err(cid, f"split {c['split']} violates the odd=frozen rule")
        except ValueError:
            err(cid, "id must end in a number")
        if c["language"] not in ("en", "de", "es", "fr"):
            err(cid, f"bad language {c['language']}")
        if cat == "non_english" and c["language"] == "en":
            err(cid, "non_english case marked en")
        if cat != "non_english" and c["language"] != "en":
            warn(cid, "non-English case outside non_english")
        try:
            ZoneInfo(c["zone"])
        except Exception:
            err(cid, f"bad zone {c['zone']}")
        try:
            now = parse_local(c["now"])
            if now.tzinfo is not None:
                err(cid, "now must be naive local time")
        except Exception:
            err(cid, f"bad now {c['now']}")
            continue
        u = c["user"]
        if not (isinstance(u, dict) and u.get("name") and u.get("email")):
            err(cid, "user needs name and email")
        turns = c["turns"]
        if not (isinstance(turns, list) and turns and all(isinstance(t, str) and t.strip() for t in turns)):
            err(cid, "turns must be a non-empty list of strings")
            continue
        if cat == "follow_ups" and not (2 <= len(turns) <= 3):
            err(cid, "follow_ups need 2-3 turns")
        if cat != "follow_ups" and len(turns) != 1:
            warn(cid, "multi-turn case outside follow_ups")
        per_cat[cat] += 1
        per_split[c["split"]] += 1
        per_cat_split[cat][c["split"]] += 1
        per_lang[c["language"]] += 1
        first_turns[" ".join(re.findall(r"\w+", turns[0].lower())[:3])].append(cid)

        w = c["world"]
        for k in w:
            if k not in WORLD_KEYS:
                err(cid, f"unknown world key {k}")
            if not w[k]:
                err(cid, f"empty world key {k} (omit it)")
        inbox = {m["id"]: m for m in w.get("inbox", [])}
        if len(inbox) != len(w.get("inbox", [])):
            err(cid, "duplicate message id in inbox")
        for m in w.get("inbox", []):
            for k in ("id", "from", "to", "subject", "body", "date", "unread"):
                if k not in m:
                    err(cid, f"message {m.get('id')} missing {k}")
            md = dt.datetime.fromisoformat(m["date"])
            if md.tzinfo is None:
                err(cid, f"message {m['id']} date lacks offset")
            else:
                local_now = now.replace(tzinfo=ZoneInfo(c["zone"]))
                if md > local_now:
                    err(cid, f"message {m['id']} is dated after now")
                exp_off = md.replace(tzinfo=None).replace(tzinfo=ZoneInfo(c["zone"])).utcoffset()
                if md.utcoffset() != exp_off:
                    warn(cid, f"message {m['id']} offset differs from the user's zone")
        events = {e["id"]: e for e in w.get("events", [])}
        if len(events) != len(w.get("events", [])):
            err(cid, "duplicate event id")
        cals = w.get("calendars")
        for e in w.get("events", []):
            if parse_local(e["end"]) <= parse_local(e["start"]):
                err(cid, f"event {e['id']} ends before it starts")
            if cals and e.get("calendar") and e["calendar"] not in cals:
                err(cid, f"event {e['id']} on unknown calendar {e['calendar']}")
        restaurants = {r["name"]: r for r in w.get("restaurants", [])}
        memories = w.get("memories", [])

        exp = c["expect"]
        if not exp:
            err(cid, "empty expect")
        for k in exp:
            if k not in EXPECT_KEYS:
                err(cid, f"unknown expect key {k}")
        for s in exp.get("sent", []):
            if not s.get("to"):
                err(cid, "sent entry without to")
            r = s.get("in_reply_to")
            if r is not None and r not in inbox:
                err(cid, f"in_reply_to {r} not in inbox")
        for fw in exp.get("forwarded", []):
            if fw["message"] not in inbox:
                err(cid, f"forwarded message {fw['message']} not in inbox")
            if not fw.get("to"):
                err(cid, "forwarded without to")
        for m in exp.get("deleted_messages", []):
            if m not in inbox:
                err(cid, f"deleted message {m} not in inbox")
        for e in exp.get("events_deleted", []):
            if e not in events:
                err(cid, f"deleted event {e} not in world")
        for mv in exp.get("events_moved", []):
            if mv["event"] not in events:
                err(cid, f"moved event {mv['event']} not in world")
            elif mv["start"] == events[mv["event"]]["start"]:
                err(cid, f"moved event {mv['event']} has the same start")
        for ec in exp.get("events_created", []):
            if ec.get("calendar") and cals and ec["calendar"] not in cals:
                err(cid, f"created event on unknown calendar {ec['calendar']}")
            if ec.get("end") and parse_local(ec["end"]) <= parse_local(ec["start"]):
                err(cid, "created event ends before start")
            if parse_local(ec["start"]) <= now:
                err(cid, "created event is in the past")
        for mr in exp.get("memories_removed", []):
            if mr not in memories:
                err(cid, f"removed memory not in world: {mr!r}")
        if "memories_added_any" in exp:
            g = exp["memories_added_any"]
            if not (isinstance(g, list) and all(isinstance(x, list) and x for x in g)):
                err(cid, "memories_added_any must be a list of non-empty lists")
        if "booking" in exp:
            b = exp["booking"]
            r = restaurants.get(b["restaurant"])
            if not r:
                err(cid, f"booking restaurant {b['restaurant']} not seeded")
            elif r["seats_free"].get(b["start"], 0) < b["party"]:
                err(cid, f"booking: {b['restaurant']} has no room for {b['party']} at {b['start']}")
            if parse_local(b["start"]) <= now:
                err(cid, "booking in the past")
        if "reminder" in exp:
            r = exp["reminder"]
            if parse_local(r["first_at"]) <= now:
                err(cid, "reminder first_at not after now")
            if r.get("repeats") not in (None, "daily", "weekly", "monthly"):
                err(cid, f"bad repeats {r.get('repeats')}")
        if exp.get("card_for") and exp["card_for"] not in CARDS:
            err(cid, f"bad card_for {exp['card_for']}")
        if exp.get("card_for") == "buy" and not w.get("shop"):
            err(cid, "buy card without a shop")
        if exp.get("no_side_effects") and SIDE_EFFECT_KEYS & set(exp):
            err(cid, "no_side_effects together with side-effect expectations")
        if exp.get("asks") and not exp.get("no_side_effects"):
            err(cid, "asks should come with no_side_effects")
        for k in ("answer_all", "answer_any", "answer_none"):
            if k in exp and not (isinstance(exp[k], list) and all(isinstance(x, str) and x for x in exp[k])):
                err(cid, f"{k} must be a list of non-empty strings")
        if cat in ("email_reply",) and not any(s.get("in_reply_to") for s in exp.get("sent", [])):
            err(cid, "email_reply without in_reply_to")
        if cat == "email_forward" and not exp.get("forwarded"):
            err(cid, "email_forward without forwarded")
        if cat == "email_delete" and (not exp.get("deleted_messages") or exp.get("card_for") != "delete_email"):
            err(cid, "email_delete needs deleted_messages and a delete_email card")
        if cat == "purchases" and exp.get("card_for") != "buy":
            err(cid, "purchase without buy card")
        if cat == "small_talk" and set(exp) != {"no_side_effects"}:
            warn(cid, "small_talk with extra expectations")
        if cat == "must_ask" and not exp.get("asks"):
            err(cid, "must_ask without asks")

        # relative date consistency: only when the final turn has a relative phrase and only one date is expected
        dates = expected_dates(exp)
        text = turns[0] if cat != "follow_ups" else " ".join(t for t in turns if not re.search(r"make it|make that|no wait", t))
        rel = relative_dates(text, now.date())
        if rel is not None and dates:
            rel_checked += 1
            for kind, d in dates:
                if d.date() not in rel:
                    err(cid, f"{kind} date {d.date()} ({d:%A}) not what '{text}' means from now={now:%Y-%m-%d %A}: {sorted(map(str, rel))}")

    # Report
    print(f"{len(cases)} cases, {len(per_cat)} categories; splits: {dict(per_split)}; languages: {dict(per_lang)}")
    print(f"{'category':22} {'n':>3} {'want':>4} {'frozen':>6} {'dev':>4}")
    for cat, want in CATEGORIES.items():
        n = per_cat.get(cat, 0)
        print(f"{cat:22} {n:>3} {want:>4} {per_cat_split[cat]['frozen']:>6} {per_cat_split[cat]['dev']:>4}")
        if n < want:
            err(cat, f"only {n} cases, want {want}")
        if per_cat_split[cat]["frozen"] == 0:
            err(cat, "no frozen cases")
    if len(cases) < 220:
        err("corpus", "fewer than 220 cases")
    if per_split["frozen"] < 90:
        err("corpus", f"only {per_split['frozen']} frozen cases")
    ne = collections.Counter(c["language"] for c in cases if c["category"] == "non_english")
    for lang in ("de", "es", "fr"):
        if ne[lang] < 8:
            err("non_english", f"only {ne[lang]} {lang} cases")
    for frame, cids in first_turns.items():
        if len(cids) > 1:
            warn(",".join(cids), f"first turns share the opening '{frame}'")
    print(f"relative-date checks performed: {rel_checked}")
    for w_ in warnings:
        print("WARN", w_)
    for e in errors:
        print("ERROR", e)
    print("OK" if not errors else f"{len(errors)} errors")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
