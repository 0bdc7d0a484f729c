"""The web connector's pure parts, without a browser: reader view, forms, human steps, arguments."""

from __future__ import annotations

import pytest

from deputy.core.records.effects import ConnectorRejected, EffectClass, RiskTag
from deputy.connectors.catalog import Catalog, InvalidArguments
from deputy.connectors.web.operations import WEB_OPERATIONS
from deputy.connectors.web.human import human_step
from deputy.connectors.web.extract import render_page
from deputy.connectors.web.forms import sensitivity
from deputy.connectors.web.forms import choose_form, find_field
from deputy.connectors.web.snapshot import Block, FormButton, FormField, FormInfo, PageSnapshot, Signals

PAGE = "https://shop.example/checkout"


def snapshot(**changes: object) -> PageSnapshot:
    base: dict[str, object] = {
        "url": PAGE,
        "title": "Shop",
        "blocks": [
            Block(kind="text", text="Home | Deals | Account", region="boilerplate"),
            Block(kind="heading", level=1, text="Your basket", region="main"),
            Block(kind="text", text="Two tickets to Lisbon. " * 10, region="main"),
            Block(kind="text", text="Sidebar promo not in main", region="body"),
        ],
    }
    base.update(changes)
    return PageSnapshot.model_validate(base)


def form(*fields: FormField, action: str = "https://shop.example/pay", buttons: list[FormButton] = ()) -> FormInfo:  # type: ignore[assignment]
    return FormInfo(index=1, id="f", action=action, method="post", fields=list(fields), buttons=list(buttons))


def test_reader_view_keeps_main_content_and_drops_navigation() -> None:
    text = render_page(snapshot())
    assert text.startswith("Title: Shop\nAddress: https://shop.example/checkout")
    assert "# Your basket" in text and "Two tickets to Lisbon." in text
    assert "Home | Deals" not in text and "Sidebar promo" not in text


def test_without_a_substantial_main_the_body_is_kept() -> None:
    blocks = [
        Block(kind="text", text="Body paragraph", region="body"),
        Block(kind="text", text="Nav", region="boilerplate"),
    ]
    text = render_page(snapshot(blocks=blocks))
    assert "Body paragraph" in text and "Nav" not in text


def test_long_text_is_cut_with_a_note() -> None:
    blocks = [Block(kind="text", text="word " * 3000, region="main")]
    text = render_page(snapshot(blocks=blocks), max_chars=1000)
    assert "The page text was cut at 1,000 of" in text
    assert len(text) < 1400


def test_hidden_text_is_counted_never_shown() -> None:
    text = render_page(snapshot(hidden_texts=3))
    assert "Left out 3 piece(s) of hidden text" in text


@pytest.mark.parametrize(
    ("fields", "action", "expected"),
    [
        ([FormField(tag="input", type="text", name="q")], "https://shop.example/search", []),
        ([FormField(tag="input", type="text", name="q")], "https://www.shop.example/s", []),
        (
            [FormField(tag="input", type="email", name="email")],
            "https://collect.evil.example/x",
            ["it sends to collect.evil.example, another site than the page"],
        ),
        (
            [FormField(tag="input", type="password", name="pw")],
            "https://shop.example/login",
            ["it contains a password field"],
        ),
        (
            [FormField(tag="input", type="text", name="cc", autocomplete="cc-number")],
            "https://shop.example/pay",
            ["it asks for payment details"],
        ),
        (
            [FormField(tag="input", type="text", name="card_number")],
            "https://shop.example/pay",
            ["it asks for payment details"],
        ),
    ],
)
def test_form_sensitivity(fields: list[FormField], action: str, expected: list[str]) -> None:
    assert sensitivity(form(*fields, action=action), PAGE) == expected


def test_a_button_sending_elsewhere_makes_a_form_sensitive() -> None:
    sneaky = form(FormField(tag="input", name="q"), buttons=[FormButton(text="Go", formaction="https://evil.example/")])
    assert sensitivity(sneaky, PAGE) == ["it sends to evil.example, another site than the page"]


def test_choosing_forms_and_fields() -> None:
    login = FormInfo(index=1, id="login", fields=[FormField(tag="input", name="user", label="Email")])
    search = FormInfo(index=2, name="search", fields=[FormField(tag="input", name="q")])
    assert choose_form([login, search], "search", [], submittable=True) is search
    assert choose_form([login, search], "1", [], submittable=True) is login
    assert choose_form([login, search], None, ["q"], submittable=True) is search
    assert find_field(login, "email").name == "user"  # by label, case-insensitive
    with pytest.raises(ConnectorRejected, match="several forms"):
        choose_form([login, search], None, [], submittable=True)
    with pytest.raises(ConnectorRejected, match="no field 'zip'.*user"):
        find_field(login, "zip")


def test_human_steps() -> None:
    captcha = snapshot(signals=Signals(captcha_widgets=1))
    assert human_step(captcha, has_login=True).reason == "captcha"  # type: ignore[union-attr]
    login_blocks = [Block(kind="heading", level=1, text="Sign in", region="main")]
    wall = snapshot(blocks=login_blocks, signals=Signals(password_fields=1))
    assert human_step(wall, has_login=False).reason == "login"  # type: ignore[union-attr]
    assert human_step(wall, has_login=True) is None
    code = snapshot(
        blocks=[Block(kind="heading", level=1, text="Enter the code we sent you", region="main")],
        forms=[form(FormField(tag="input", name="c"))],
    )
    assert human_step(code, has_login=True).reason == "two_factor"  # type: ignore[union-attr]
    # A long article that mentions CAPTCHAs in passing is just an article.
    article = snapshot(blocks=[Block(kind="text", text="Why a captcha annoys people. " * 100, region="main")])
    assert human_step(article, has_login=False) is None


def test_the_catalog_declares_effects_tags_and_targets() -> None:
    catalog = Catalog(WEB_OPERATIONS)
    specs = {name: catalog.get(name).spec for name in catalog.names()}  # type: ignore[union-attr]
    assert {n: s.effect for n, s in specs.items()} == {
        "open_page": EffectClass.read,
        "search_web": EffectClass.read,
        "screenshot": EffectClass.read,
        "fill_form": EffectClass.write,
        "click": EffectClass.write,
        "submit_form": EffectClass.write,
        "submit_sensitive_form": EffectClass.write,
    }
    assert RiskTag.navigation in specs["open_page"].tags
    assert specs["submit_form"].tags == frozenset()
    assert specs["submit_sensitive_form"].tags == {RiskTag.share}
    submit = catalog.get("submit_sensitive_form")
    args = submit.validate({"url": "https://a.example/f", "action_url": "https://b.example/x"})  # type: ignore[union-attr]
    assert submit.targets(args) == ["https://b.example/x"]  # type: ignore[union-attr]
    for tool in catalog.tool_schemas():
        assert len(str(tool)) < 900


@pytest.mark.parametrize(
    "arguments",
    [
        {"url": "file:///etc/passwd"},
        {"url": "javascript:alert(1)"},
        {"url": "chrome://settings"},
        {"url": "https://example.com/" + "a" * 3000},
        {"url": "https://example.com/", "extra": 1},
    ],
)
def test_open_page_refuses_what_is_not_a_web_address(arguments: dict[str, object]) -> None:
    with pytest.raises(InvalidArguments):
        Catalog(WEB_OPERATIONS).get("open_page").validate(arguments)  # type: ignore[union-attr]


def test_fill_form_bounds_its_fields() -> None:
    fill = Catalog(WEB_OPERATIONS).get("fill_form")
    with pytest.raises(InvalidArguments):
        fill.validate({"url": "https://a.example/", "fields": {f"f{i}": "x" for i in range(41)}})  # type: ignore[union-attr]
    with pytest.raises(InvalidArguments):
        fill.validate({"url": "https://a.example/", "fields": {"f": "x" * 10_001}})  # type: ignore[union-attr]
    with pytest.raises(InvalidArguments):
        fill.validate({"url": "https://a.example/", "fields": {}})  # type: ignore[union-attr]
