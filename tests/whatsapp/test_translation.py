"""Telegram-shaped messages to WhatsApp messages and back, within WhatsApp's limits."""

from __future__ import annotations

from deputy.whatsapp import outbound
from deputy.whatsapp.inbound import Card, to_update

WA = "15550009999"


def keyboard(*titles: str) -> dict:
    return {"inline_keyboard": [[{"text": t, "callback_data": f"a:{i}:sig"} for i, t in enumerate(titles)]]}


def test_an_approval_card_becomes_one_message_with_reply_buttons_carrying_the_signed_data() -> None:
    [message] = outbound.plan(WA, "Send this email?\nTo: alice@example.org", keyboard("Approve", "Deny", "Always allow"))
    assert message["type"] == "interactive" and message["interactive"]["type"] == "button"
    buttons = message["interactive"]["action"]["buttons"]
    assert [(b["reply"]["title"], b["reply"]["id"]) for b in buttons] == [
        ("Approve", "a:0:sig"), ("Deny", "a:1:sig"), ("Always allow", "a:2:sig")]
    assert message["interactive"]["body"]["text"].startswith("Send this email?")


def test_a_long_card_keeps_its_buttons_under_a_body_of_at_most_1024_characters() -> None:
    text = "\n".join(f"line {i} " + "x" * 60 for i in range(100))  # ~7,000 characters
    messages = outbound.plan(WA, text, keyboard("Approve", "Deny"))
    *parts, card = messages
    assert all(m["type"] == "text" and len(m["text"]["body"]) <= 4096 for m in parts)
    assert len(card["interactive"]["body"]["text"]) <= 1024
    said = "\n".join([*(m["text"]["body"] for m in parts), card["interactive"]["body"]["text"]])
    assert said.replace("\n", "") == text.replace("\n", ""), "nothing lost or repeated"


def test_more_than_three_buttons_or_long_titles_become_list_messages_of_ten_rows() -> None:
    titles = [f"Remove the rule number {i}" for i in range(1, 13)]
    first, second = outbound.plan(WA, "Your rules", keyboard(*titles))
    rows = [r for m in (first, second) for r in m["interactive"]["action"]["sections"][0]["rows"]]
    assert first["interactive"]["type"] == "list" and len(rows) == 12
    assert len(first["interactive"]["action"]["sections"][0]["rows"]) == 10
    assert all(len(r["title"]) <= 24 for r in rows) and rows[0]["id"] == "a:0:sig"
    [single] = outbound.plan(WA, "Pick", keyboard("Pay with this card by default"))
    assert single["interactive"]["type"] == "list", "a title over 20 characters does not fit a reply button"


def test_a_long_text_is_split_at_4096_characters() -> None:
    parts = outbound.plan(WA, "word " * 2000)
    assert len(parts) == 3 and all(len(p["text"]["body"]) <= 4096 for p in parts)


def test_a_template_carries_the_text_as_its_one_parameter_without_line_breaks() -> None:
    message = outbound.template_message(WA, "deputy_checkin", "en", "Check-in:\nthe price dropped.\n\nBuy?")
    assert message["template"]["name"] == "deputy_checkin"
    [parameter] = message["template"]["components"][0]["parameters"]
    assert parameter["text"] == "Check-in: · the price dropped. · Buy?"


def test_the_command_menu_is_a_list_whose_rows_type_the_command() -> None:
    commands = [(f"cmd{i}", f"does thing {i}") for i in range(12)]
    first, second = outbound.command_menu(WA, commands, "Choose a command:")
    row = first["interactive"]["action"]["sections"][0]["rows"][0]
    assert row == {"id": "cmd:/cmd0", "title": "/cmd0", "description": "does thing 0"}
    update = to_update({"type": "interactive", "timestamp": "1700000000", "interactive": {
        "type": "list_reply", "list_reply": {"id": "cmd:/goals", "title": "/goals"}}},
        update_id=5, message_id=9, account_id=77, name="Ann")
    assert update["message"]["text"] == "/goals"
    assert update["message"]["entities"] == [{"type": "bot_command", "offset": 0, "length": 6}]


def test_a_reply_button_becomes_a_press_on_the_card_it_was_under() -> None:
    update = to_update({"type": "interactive", "timestamp": "1700000000", "context": {"id": "wamid.card"},
                        "interactive": {"type": "button_reply", "button_reply": {"id": "ap:x:sig", "title": "Approve"}}},
                       update_id=6, message_id=10, account_id=77, name="Ann", card=Card(3, "Send this email?"))
    query = update["callback_query"]
    assert query["data"] == "ap:x:sig" and query["from"]["id"] == 77
    assert query["message"]["message_id"] == 3 and query["message"]["text"] == "Send this email?"


def test_texts_images_and_documents_become_telegram_messages() -> None:
    text = to_update({"type": "text", "timestamp": "1", "text": {"body": "book a table"}},
                     update_id=1, message_id=2, account_id=77, name="Ann")["message"]
    assert text["text"] == "book a table" and "entities" not in text and text["chat"]["id"] == 77
    photo = to_update({"type": "image", "timestamp": "1", "image": {"id": "555", "caption": "what is this?"}},
                      update_id=1, message_id=2, account_id=77, name="Ann")["message"]
    assert photo["photo"][0]["file_id"] == "555" and photo["caption"] == "what is this?"
    doc = to_update({"type": "document", "timestamp": "1", "document": {
        "id": "556", "filename": "bill.pdf", "mime_type": "application/pdf"}},
        update_id=1, message_id=2, account_id=77, name="Ann")["message"]
    assert doc["document"]["file_name"] == "bill.pdf" and doc["document"]["mime_type"] == "application/pdf"
    voice = to_update({"type": "audio", "timestamp": "1", "audio": {"id": "557"}},
                      update_id=1, message_id=2, account_id=77, name="Ann")["message"]
    assert "text" not in voice


def test_a_card_with_a_fourth_or_long_choice_keeps_its_buttons_and_lists_the_rest() -> None:
    card, more = outbound.plan(WA, "Pay 20 EUR at the shop?", keyboard(
        "Approve", "Deny", "Always allow this", "Pay here with Visa 4242 from now on"))
    assert [b["reply"]["title"] for b in card["interactive"]["action"]["buttons"]] == [
        "Approve", "Deny", "Always allow this"]
    [row] = more["interactive"]["action"]["sections"][0]["rows"]
    assert more["interactive"]["body"]["text"] == "More choices" and row["id"] == "a:3:sig"
    assert row["description"] == "Pay here with Visa 4242 from now on"
