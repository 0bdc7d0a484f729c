"""Answers about the user's data must rest on what the goal read: backed, unbacked and half-backed answers."""

from deputy.agent.grounding import Evidence, unbacked_claims

RECEIPT = ("From: orders@kettleshop.example\nSubject: Your order A-10442\n"
           "Thanks for your order A-10442 placed 2026-11-28. Items: Kettle 2L. Total: €57,80 incl. VAT.")
SAM = ("From: Sam Lee <sam.lee@example.net>\nSubject: dinner?\n"
       "Hi! Are we still on for dinner on Saturday at 7pm? Bring the salad if you can.")
EVENT = "Team sync, 2026-12-08T14:00:00+00:00 to 2026-12-08T15:00:00+00:00, calendar Work"


def kinds(answer: str, evidence: Evidence) -> list[tuple[str, str]]:
    return [(claim.kind, claim.text) for claim in unbacked_claims(answer, evidence)]


def test_an_answer_that_states_what_was_read_is_backed_whatever_the_number_format():
    evidence = Evidence(user_words=["How much was my order from the kettle shop?"], reads=[RECEIPT])
    assert kinds("Your order A-10442 from 28 November came to 57.80 EUR.", evidence) == []
    assert kinds("It was €57,80 (order #A-10442).", evidence) == []


def test_an_invented_order_number_and_amount_are_unbacked():
    evidence = Evidence(user_words=["How much was my order from the kettle shop?"], reads=[RECEIPT])
    found = kinds("Your order B-99812 cost $64.20.", evidence)
    assert ("identifier", "B-99812") in found
    assert ("amount", "$64.20") in found


def test_half_backed_answer_names_only_the_invented_part():
    evidence = Evidence(user_words=["did Sam say what I should bring?"], reads=[SAM])
    assert kinds("Sam asked you to bring the salad.", evidence) == []
    found = kinds("Sam asked you to bring the salad and 2.5 litres of Pepsi, says Marco Rossi.", evidence)
    assert ("number", "2.5") in found
    assert ("name", "Pepsi") in found and ("name", "Rossi") in found
    assert not any(text == "Sam" for _, text in found)


def test_times_are_compared_in_the_users_zone_and_in_any_writing():
    evidence = Evidence(user_words=["when is my next meeting?"], reads=[EVENT], zone="Europe/Berlin")
    assert kinds("Your next meeting is the Team sync on Tuesday at 15:00.", evidence) == []
    assert kinds("Team sync, Tuesday 3 pm.", evidence) == []
    assert ("time", "10:30") in kinds("Your next meeting is at 10:30.", evidence)


def test_a_quote_must_be_found_in_what_was_read():
    evidence = Evidence(user_words=["what did Sam write?"], reads=[SAM])
    assert kinds("Sam wrote: “Bring the salad if you can.”", evidence) == []
    assert ("quote", "I will be late tonight") in kinds("Sam wrote: “I will be late tonight”.", evidence)


def test_general_knowledge_with_nothing_read_is_not_held_to_the_reads():
    evidence = Evidence(user_words=["How many days does February 2028 have?"])
    assert kinds("February 2028 has 29 days, because 2028 is a leap year.", evidence) == []
    assert kinds("In Spanish you say “¿Dónde está la estación de tren?”", evidence) == []


def test_an_address_nobody_gave_is_never_stated_even_with_nothing_read():
    evidence = Evidence(user_words=["what's my sister's email?"])
    assert ("email", "jo.morgan@mailbox.org") in kinds("Her address is jo.morgan@mailbox.org.", evidence)
    remembered = Evidence(user_words=["what's my sister's email?"], known=["My sister is Jo, jo.morgan@mailbox.org"])
    assert kinds("Her address is jo.morgan@mailbox.org.", remembered) == []


def test_german_nouns_are_not_taken_for_names():
    evidence = Evidence(user_words=["Wann ist mein nächster Termin?"], reads=[EVENT], zone="Europe/Berlin")
    assert kinds("Ihr nächster Termin ist das Team sync am Dienstag um 15:00 Uhr im Kalender Work.", evidence) == []


def test_an_invented_person_is_caught_among_other_capitalised_words():
    evidence = Evidence(user_words=["How much was my order from the kettle shop?"], reads=[RECEIPT])
    found = kinds("Your order A-10442 from 28 November came to 57.80 EUR, paid by John Smith.", evidence)
    assert ("name", "John") in found and ("name", "Smith") in found
    assert not any(kind != "name" for kind, _ in found)


def test_an_answer_about_emails_from_a_made_up_sender_is_caught():
    evidence = Evidence(user_words=["no email, just tell me a joke"], reads=[SAM])
    assert ("name", "Doe") in kinds("You have two emails from John Doe about the invoice.", evidence)


def test_an_example_address_in_a_general_answer_is_an_illustration_but_not_after_a_read():
    general = Evidence(user_words=["how do I ask you to send mail?"])
    assert kinds("Say “email alice@example.org that I'll be late”.", general) == []
    assert ("email", "bob@company.com") in kinds("Write to bob@company.com.", general)
    after_a_read = Evidence(user_words=["who wrote about dinner?"], reads=[SAM])
    assert ("email", "alice@example.org") in kinds("alice@example.org wrote about dinner.", after_a_read)
