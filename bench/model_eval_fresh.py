"""Twenty more everyday goals for `bench.model_eval --set fresh`, written after Deputy's goal shapes
(`deputy.agent.goal_shapes`) were built and never used to tune them: how well the code that reads a goal's
shape carries over to phrasings it was not made from."""

from __future__ import annotations

from bench.model_eval import ASK, PLAIN, Case, case, starts

BROTHER = ("My brother Tom's email is tom.berg@example.org",)

FRESH: list[Case] = [
    case("Shoot an email to nina@example.com saying I'll bring the cake", "send_email", "nina@example.com", "cake"),
    case("Could you let oscar@example.org know the train is delayed by 20 minutes?", "send_email",
         "oscar@example.org", "delay"),
    case("mail pat@example.net: can we push the call to 4?", "send_email", "pat@example.net", "call"),
    case("Write a short note to quinn@example.com thanking her for the flowers", "send_email", "quinn@example.com",
         "flowers"),
    case("Any emails from rachel@example.com this week?", "search_email", "rachel@example.com", category="steps"),
    case("What did the landlord say in his last email?", "search_email", category="steps"),
    case("Add a haircut on Friday at 16:00", "create_event", "haircut", check=starts("2026-12-04T16:00"),
         category="calendar"),
    case("Put my mum's birthday dinner on the calendar for 10 December at 19:30", "create_event", "birthday",
         check=starts("2026-12-10T19:30"), category="calendar"),
    case("Block two hours tomorrow at 10 for deep work", "create_event", "deep work",
         check=starts("2026-11-30T10:00+01:00"), category="calendar", zone="Europe/Berlin"),
    case("What do I have on Wednesday?", "list_events free_busy", category="calendar"),
    case("Am I free tomorrow morning?", "free_busy list_events", category="calendar"),
    case("Remember that my gym is FitLife on Baker Street", "remember", "fitlife", category="memory"),
    case("Please note that I prefer window seats", "remember", "window", category="memory"),
    case("How many weeks are in a year?", PLAIN, "52", category="question"),
    case("What's 12 times 12?", PLAIN, "144", category="question"),
    case("Google the best time to visit Japan", "search_web", "japan", category="web"),
    case("Go to https://news.example and summarise the top story", "open_page", "news.example", category="web"),
    case("Text my brother that dinner is at 8", "send_email", "tom.berg@example.org", memories=BROTHER,
         category="memory"),
    case("Send a reminder to the plumber about Tuesday", ASK, category="ask"),
    case("Email my dentist to cancel my appointment", ASK, category="ask"),
]
