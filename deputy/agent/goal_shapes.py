"""The shape of an everyday goal, read by code: which tools its first step can rightly use.

A 1.5B model offered eight tools for "email dan@example.com: the boiler is fixed" may answer the
user ("Thanks for letting me know!") instead of sending the email; for "find the email from Ivan
and forward it" it may send at once instead of looking first; for a booking page it may put the
booking in the calendar. Those are choices of tool, and for goals of a few common shapes the right
first tool is plain from the words alone: a sending verb with an address, a question about the
inbox, a page's address, "remember that ...". `first_step_tools` reads the first clause of the
goal (a goal of several steps starts with its first) and names the tools its first step may use;
`deputy.agent.tool_selection` then offers only those, so the model's choice is between right answers and
its prompt is shorter. Goals of no recognised shape (questions, anything unusual) keep the usual
keyword selection: the shapes only narrow, they never act. Pure functions of the user's words.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from deputy.agent.asked_words import asks_for_draft

_ADDRESS = re.compile(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+")
_URL = re.compile(r"https?://\S+|\bwww\.\S+|\b[a-z0-9-]+(?:\.[a-z0-9-]+)*\.(?:com|org|net|io|dev|example|co|de|fr|uk)"
                  r"(?:/\S*)?(?![\w@])")
_CLAUSE_END = re.compile(r"\s+(?:and then|and|then)\s+|[,;]\s*then\s+|[;?!]\s+|\.\s+(?=[A-Z])", re.IGNORECASE)
_POLITE = re.compile(r"^(?:(?:please|pls|can you|could you|would you|will you|kindly|hey|hi|ok|okay|deputy)[,\s]+)+",
                     re.IGNORECASE)

_MAIL_VERB = re.compile(r"^(?:e-?mail|mail|message|text)\b(?! me\b| us\b)", re.IGNORECASE)
_PERSON_VERB = re.compile(
    r"^(?:tell|ask|inform|notify|remind|let \S+(?: \S+)? know|drop \S+(?: \S+)? an? (?:line|note|email))\b"
    r"(?! (?:me|us|yourself|a|an)\b)", re.IGNORECASE)
_SEND = re.compile(r"^(?:send|write|shoot|forward|draft)\b(?! me\b| us\b)", re.IGNORECASE)
_TWO_OBJECTS = re.compile(r"^send\s+(?:my\s+|our\s+)?\w+\s+(?:the|a|an|my|our|this|that|some|his|her|their)\b",
                          re.IGNORECASE)
_LETTER = re.compile(r"\b(?:e-?mail|mail|note|message|letter|line|thank-?you|reply)\b|\bto\s+(?!me\b|us\b)\w+",
                     re.IGNORECASE)
_MAIL_NOUN = re.compile(r"\b(?:e-?mails?|e-?mailed|mails?|inbox|mailbox|messages?|newsletters?|spam|replies|repl(?:y|ied)|"
                        r"invoices?|receipts?)\b", re.IGNORECASE)
_MAIL_LOOK = re.compile(
    r"^(?:do i have|have i (?:got|received)|did|has|have|is there|are there|any|find|search|look (?:for|through|at|in)|"
    r"check (?:my|the|for|if|whether)|read|open|show|forward|reply to|respond to|answer|what did|who (?:sent|wrote|emailed)|"
    r"when did|summari[sz]e|go through|archive|delete|remove|mark|move|file|unsubscribe|clean up)\b", re.IGNORECASE)
_CALENDAR_NOUN = re.compile(r"\b(?:calendar|diary|agenda|schedule|appointments?|meetings?|events?)\b", re.IGNORECASE)
_CALENDAR_LOOK = re.compile(
    r"^(?:what(?:'s| is| do i have)(?: on)?|what time is|when(?:'s| is)|look at|check|show|list|is there anything|"
    r"find (?:a |an )?(?:free|time|slot|hour|gap))\b", re.IGNORECASE)
_CALENDAR_QUESTION = re.compile(
    r"^(?:do i have (?:anything|something|plans|any (?:plans|meetings|appointments))|am i (?:free|busy|available)|"
    r"when am i (?:free|busy|available)|what(?:'s| is| does) my (?:day|week|morning|afternoon|evening)\b|"
    r"how (?:does|do) my (?:day|week))", re.IGNORECASE)
_MY = re.compile(r"\b(?:my|our)\b", re.IGNORECASE)
_FREE_TIME = re.compile(r"\b(?:free|busy|available|slot)\b", re.IGNORECASE)
_CALENDAR_ADD = re.compile(r"^(?:add|put|block(?: out| off)?|schedule|set up|create|pencil(?: in)?|invite"
                           r"|remind me with)\b", re.IGNORECASE)
_CALENDAR_ADD_OBJECT = re.compile(r"\b(?:calendar|diary|agenda|appointment|meeting|event|call|lunch|dinner|session|"
                                  r"1:1|one-on-one|standup|stand-up|catch-?up|sync|class|review)\b", re.IGNORECASE)
_CALENDAR_CHANGE = re.compile(r"^(?:move|reschedule|push|postpone|shift|bring forward|cancel|delete|remove|call off)\b",
                              re.IGNORECASE)
_EVENT_NOUN = re.compile(r"\b(?:calendar|appointment|meeting|lunch|dinner|breakfast|call|event|session|class|"
                         r"interview|check-?up|visit|party|date|review|standup|stand-up|catch-?up|sync)\b", re.IGNORECASE)
_TIME_WORDS = re.compile(
    r"\b(?:today|tonight|tomorrow|monday|tuesday|wednesday|thursday|friday|saturday|sunday|next week|this week|"
    r"weekend|morning|afternoon|evening|noon|midnight|january|february|march|april|may|june|july|august|september|"
    r"october|november|december|\d{1,2}(?::\d{2})?\s*(?:am|pm)|\d{1,2}:\d{2}|(?:the )?\d{1,2}(?:st|nd|rd|th))\b",
    re.IGNORECASE)
_WATCH = re.compile(
    r"\b(?:every (?:day|morning|evening|night|hour|week|month|monday|tuesday|wednesday|thursday|friday|saturday|sunday|"
    r"\d+ (?:minutes?|hours?|days?))|daily|hourly|weekly|each (?:day|morning|week)|keep (?:an eye|checking|watching)|"
    r"monitor|watch (?:for|out for|the)|(?:let me know|tell me|notify me|alert me|ping me|message me) "
    r"(?:when|if|once|as soon as)\b[^.?!]*\b(?:drops?|falls?|goes (?:up|down)|rises?|below|above|under|over|"
    r"in stock|available|back|arrives?|comes? in|repl(?:y|ies)|answers?|changes?|on sale))",
    re.IGNORECASE)
_REMIND = re.compile(r"\b(?:remind me|ping me|nudge me)\b", re.IGNORECASE)
_REMIND_IF = re.compile(r"\b(?:if|unless|when|once|as soon as)\b", re.IGNORECASE)
"""A reminder that depends on something happening ("remind me if Sam hasn't replied") is a watch."""
_REMEMBER = re.compile(r"^(?:remember|note|keep in mind|don'?t forget|make a note)\b(?! to\b)", re.IGNORECASE)
_FORGET = re.compile(r"^forget\b", re.IGNORECASE)
_RECALL = re.compile(r"^what do you (?:remember|know)\b|^what have i told you\b", re.IGNORECASE)
_SCREENSHOT = re.compile(r"\bscreen ?shot\b|\bcapture\b", re.IGNORECASE)
_WEB_SEARCH = re.compile(r"^(?:search (?:the web|online|the internet|google)(?: for)?|google|look up|look online"
                         r"|search for|find out)\b", re.IGNORECASE)
_CONTENT_WORD = re.compile(r"[a-z]{3,}", re.IGNORECASE)
_NOT_CONTENT = frozenset({
    "email", "mail", "write", "send", "message", "tell", "ask", "let", "know", "drop", "line", "note", "the", "and",
    "him", "her", "them", "please", "quick", "short", "about", "that", "saying", "say", "with", "for", "new",
    "can", "could", "would", "will", "you", "pls",
})


OWN_TOOLS = frozenset("""
    split_into_subgoals schedule_check remind_me no_news read_result reply update_plan remember forget_memory recall
    send_email search_email read_email read_thread draft_email reply_email forward_email move_email mark_email
    list_events free_busy create_event schedule_meeting move_event cancel_event
    open_page search_web fill_form submit_form submit_sensitive_form click screenshot pay_on_page
    list_files read_file write_file delete_file run_python send_file
""".split())
"""Deputy's own tools, among which a shape chooses (a test keeps this list equal to the catalog's). Tools
the user connected themselves (an OpenAPI or MCP service) are not narrowed away by a shape."""

_BOOKING = re.compile(r"^(?:book|reserve|get)\b.*\b(?:table|restaurant)\b|^make an? (?:dinner |lunch )?reservation\b",
                      re.IGNORECASE)
_PLACE = re.compile(r"\b(?:at|in)\s+(?:[A-Z][\w'&-]+|the [A-Z])")


@dataclass(frozen=True)
class Shape:
    """A recognised goal shape and the tools its first step may use."""

    name: str
    tools: frozenset[str]


def _shape(name: str, tools: str) -> Shape:
    return Shape(name, frozenset(tools.split()))


def first_clause(text: str) -> str:
    """The goal's first instruction, without politeness: what its first step must do."""
    head = _CLAUSE_END.split(text.strip(), maxsplit=1)[0]
    return _POLITE.sub("", head).strip()


def goal_shape(text: str) -> Shape | None:
    """The shape of the goal `text` (the user's own words), or None when it has none of the known shapes."""
    whole = text.strip()
    head = first_clause(whole)
    if not head:
        return None
    page = _URL.search(_ADDRESS.sub(" ", head))  # an address such as ann@example.org is no page
    if _CALENDAR_ADD.match(head) and _CALENDAR_ADD_OBJECT.search(head) and page is None:
        return _adding_event(head)  # before "weekly": a repeating event is an event
    if _REMIND.search(whole) and not _REMIND_IF.search(whole):
        return _shape("reminder", "remind_me")
    if _WATCH.search(whole):
        return _shape("watch", "schedule_check")
    if _FORGET.match(head):
        return _shape("forget", "forget_memory")
    if _RECALL.match(head):
        return _shape("recall", "recall")
    if _REMEMBER.match(head):
        return _shape("remember", "remember")
    if _MAIL_LOOK.match(head) and _MAIL_NOUN.search(head):
        return _shape("read mail", "search_email")
    if _writes_to_someone(head) and page is None:
        return _sending(whole)
    if page is not None:
        return _shape("page screenshot", "screenshot") if _SCREENSHOT.search(head) else _shape("page", "open_page")
    if _CALENDAR_QUESTION.match(head) or (
            _CALENDAR_LOOK.match(head) and (_CALENDAR_NOUN.search(head) or _FREE_TIME.search(head)
                                            or (_EVENT_NOUN.search(head) and _MY.search(head)))):
        return _shape("look at calendar", "list_events free_busy")
    if _CALENDAR_CHANGE.match(head) and _EVENT_NOUN.search(head):
        return _shape("change event", "list_events")  # the event's id comes from the list
    if _CALENDAR_ADD.match(head) and (_CALENDAR_NOUN.search(head) or _TIME_WORDS.search(head)):
        return _adding_event(head)
    if _BOOKING.match(head):
        # A table needs a place: with one named, find its booking page; with none, ask which.
        return _shape("book a table", "search_web open_page" if _PLACE.search(head) else "reply")
    if _WEB_SEARCH.match(head) and not _MAIL_NOUN.search(head) and not _CALENDAR_NOUN.search(head):
        return _shape("web search", "search_web")
    return None


def _adding_event(head: str) -> Shape:
    """An event for the user's calendar; an invitation only when the goal says whom to invite ("lunch with
    Sam" is an entry in the user's own calendar: Sam's address is nowhere to be found)."""
    if _ADDRESS.search(head) or re.match(r"^invite\b", head, re.IGNORECASE):
        return _shape("add a meeting", "schedule_meeting create_event")
    return _shape("add event", "create_event")


def _writes_to_someone(head: str) -> bool:
    """The first clause writes to a person: "email ...", "tell Anna ...", "send a note to ...", "write to ..."."""
    if _MAIL_VERB.match(head) or _PERSON_VERB.match(head):
        return True
    return bool(_SEND.match(head) and (_ADDRESS.search(head) or _LETTER.search(head) or _TWO_OBJECTS.match(head)))


def _sending(whole: str) -> Shape:
    """A goal that writes to someone: the email is the right first step, never an answer to the user (the
    mistake this prevents). A recipient the model makes up is asked about by Deputy's own code
    (`deputy.agent.action_requests`); with nothing to say, the model may ask what to write."""
    tools = "draft_email" if asks_for_draft(whole) else "send_email"
    said = [w for w in _CONTENT_WORD.findall(_ADDRESS.sub(" ", whole)) if w.lower() not in _NOT_CONTENT]
    if len(said) >= 2:
        return _shape("write to someone", tools)
    return _shape("write to someone, saying what?", f"{tools} reply")


def first_step_tools(text: str) -> frozenset[str] | None:
    """The tools the first step of the goal `text` may use, or None when any may (no known shape)."""
    shape = goal_shape(text)
    return shape.tools if shape is not None else None
