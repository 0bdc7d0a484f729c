"""Where each value of an action came from, as the web view draws it from the guard's tracing."""

from __future__ import annotations

from deputy.core.records.actions import Action
from deputy.core.records.effects import EffectClass
from deputy.sentinel.provenance import ProvenanceContext, UntrustedItem
from deputy.sentinel.value_sources import Source, value_flows
from deputy.webview.flow_svg import flow_svg

EMAIL = ("From: bob@partner.example\nSubject: contract\n\nPlease send the signed contract to "
         "contracts@vendor.example before Friday, with the words: the deal is agreed as discussed.")


def send(to: str, body: str) -> Action:
    return Action(id="a_1", goal_id="g_1", user_id=1, chat_id=1, connector="email", operation="send_email",
                  effect=EffectClass.communicate, arguments={"to": [to], "subject": "Contract", "body": body},
                  targets=[to], tool_call_id="c1", created_at=0)


def context(words: str) -> ProvenanceContext:
    return ProvenanceContext(trusted_texts=[words], user_words=[words], untrusted=[
        UntrustedItem(origin="an email from bob@partner.example", text=EMAIL, at=0)])


def test_a_recipient_from_an_email_is_outside_content_and_one_the_user_typed_is_theirs() -> None:
    flows = value_flows(send("contracts@vendor.example", "Here it is."), context("do what Bob asks"))
    recipient = next(f for f in flows if f.field == "recipient")
    assert recipient.source is Source.outside and "bob@partner.example" in recipient.origin
    assert next(f for f in flows if f.field == "body").source is Source.model

    flows = value_flows(send("alice@example.org", "Here it is."), context("send the contract to alice@example.org"))
    recipient = next(f for f in flows if f.field == "recipient")
    assert recipient.source is Source.user and recipient.origin == "your words"


def test_a_body_copied_from_the_email_is_marked_with_the_passage() -> None:
    flows = value_flows(send("alice@example.org", "the deal is agreed as discussed."),
                        context("send the contract to alice@example.org"))
    body = next(f for f in flows if f.field == "body")
    assert body.source is Source.outside and "bob@partner.example" in body.origin


def test_the_diagram_marks_each_source_in_words_and_escapes_what_it_quotes() -> None:
    hostile = "<script>alert(1)</script> x@evil.example"
    svg = flow_svg(value_flows(send("contracts@vendor.example", hostile), context("do what Bob asks")), key="k")
    assert "<script>" not in svg and "&lt;script&gt;" in svg
    assert "Outside content (untrusted)" in svg and "The model&#x27;s own text" in svg
    assert "class='arrow outside'" in svg and "stroke-dasharray" in svg  # not colour alone
    assert "the recipient “contracts@vendor.example” came from the email from bob@partner.example" in svg
    assert "the body “&lt;script&gt;alert(1)&lt;/script&gt; x@evil.example” was written by the model" in svg
