"""What each connectable service asks for, and how the answers become vault entries."""

from __future__ import annotations

import json
import re
import time
from dataclasses import dataclass
from typing import Callable
from urllib.parse import urlsplit

from pydantic import SecretStr

from deputy.core.accounts.connect_links import FORM_SERVICES, TRAVELLER_HANDLE
from deputy.core.records.card_expiry import months_left, parse_expiry


@dataclass(frozen=True)
class Field:
    name: str
    label: str
    kind: str = "text"  # text | number | password | email | url | select
    default: str = ""
    options: tuple[str, ...] = ()
    required: bool = True


@dataclass(frozen=True)
class Entry:
    """One vault entry to write: handle, the secret, a label and the non-secret details."""

    handle: str
    secret: SecretStr
    label: str
    public: dict[str, str]


@dataclass(frozen=True)
class ServiceForm:
    service: str
    title: str
    explanation: str
    fields: tuple[Field, ...]
    entries: Callable[[dict[str, str]], list[Entry]]
    servers: Callable[[dict[str, str]], list[tuple[str, str, int | None]]] = lambda values: []
    """The servers Deputy will connect to: (what, host or URL, port or None for a URL)."""


def _email_entries(values: dict[str, str]) -> list[Entry]:
    password = SecretStr(values["password"])
    security = values.get("security", "ssl")
    tls = {"ssl": "true" if security == "ssl" else "false", "starttls": "true" if security == "starttls" else "false"}
    return [
        Entry("cred:email/smtp", password, f"Email {values['address']} (sending)", {
            "host": values["smtp_host"], "port": values["smtp_port"], "username": values["username"],
            "from_address": values["address"], **tls,
        }),
        Entry("cred:email/imap", password, f"Email {values['address']} (reading)", {
            "host": values["imap_host"], "port": values["imap_port"], "username": values["username"],
            "address": values["address"], **tls,
        }),
    ]


def _calendar_entries(values: dict[str, str]) -> list[Entry]:
    return [Entry("cred:calendar/caldav", SecretStr(values["password"]), f"Calendar at {values['url']}",
                  {"url": values["url"], "username": values["username"]})]


def _key_entries(values: dict[str, str]) -> list[Entry]:
    # The handle is the link's own (see `connect_page`); "" here is replaced there.
    public = {"username": values["username"]} if values.get("username") else {}
    return [Entry("", SecretStr(values["secret"]), "API key or token", public)]


def web_site(text: str) -> str:
    """The host a web login is for, from what the user typed ("https://shop.example/login" or "shop.example")."""
    raw = text.strip()
    host = urlsplit(raw if "://" in raw else f"//{raw}").hostname or ""
    return host.lower().rstrip(".")


def _web_entries(values: dict[str, str]) -> list[Entry]:
    site = web_site(values["site"])
    return [Entry(f"cred:web/{site}", SecretStr(values["password"]), f"Login for {site}",
                  {"username": values["username"]})]


def card_handle(nickname: str) -> str:
    """`cred:card/<nickname as a slug>`, or `cred:card/main` without a nickname: a second
    card with its own nickname is kept beside the first instead of replacing it."""
    slug = re.sub(r"[^a-z0-9]+", "-", nickname.casefold()).strip("-")[:40]
    return f"cred:card/{slug or 'main'}"


def _card_entries(values: dict[str, str]) -> list[Entry]:
    nickname = values.get("nickname", "")
    year, month = parse_expiry(values["expiry"]) or (0, 0)
    return [Entry(card_handle(nickname), SecretStr(values["number"]), nickname or f"Card of {values['holder']}",
                  {"holder": values["holder"], "expiry": f"{month:02d}/{year % 100:02d}"})]


def traveller_handle(companion: str) -> str:
    """`cred:traveller/main` for the user's own details; `cred:traveller/<companion as a slug>` for
    someone travelling with them, kept beside the user's own (one form each)."""
    slug = re.sub(r"[^a-z0-9]+", "-", companion.casefold()).strip("-")[:40]
    return TRAVELLER_HANDLE if not slug else f"cred:traveller/{'companion-main' if slug == 'main' else slug}"


def _traveller_entries(values: dict[str, str]) -> list[Entry]:
    """The traveller's details as one sealed entry: the executor fills them into a booking itself.

    The label names only the short name the user gave a companion, never the details."""
    details = {k: values[k] for k in ("name", "date_of_birth", "passport_number") if values.get(k)}
    companion = values.get("companion", "")
    label = f"Traveller details: {companion}" if traveller_handle(companion) != TRAVELLER_HANDLE \
        else "Traveller details"
    return [Entry(traveller_handle(companion), SecretStr(json.dumps(details)), label, {})]


def _traveller_problems(values: dict[str, str]) -> list[str]:
    problems = []
    if values.get("date_of_birth") and not re.fullmatch(r"\d{4}-\d{2}-\d{2}", values["date_of_birth"]):
        problems.append("Date of birth must look like 1990-04-02.")
    if values.get("passport_number") and not re.fullmatch(r"[A-Z0-9]{5,20}", values["passport_number"].upper()):
        problems.append("The passport number is 5 to 20 letters and digits.")
    return problems


def _card_problems(values: dict[str, str], now: float) -> list[str]:
    expiry = parse_expiry(values.get("expiry", ""))
    if expiry is None:
        return ["Expiry must look like MM/YY, for example 08/29."]
    if months_left(expiry, now) < 0:
        return ["This card has expired; please add a current one."]
    return []


FORMS: dict[str, ServiceForm] = {
    "card": ServiceForm(
        service="card",
        title="Add a payment card",
        explanation="Deputy never shows the number to its AI: each approved purchase gets a single-use token "
        "for exactly the approved amount and shop.",
        fields=(
            Field("number", "Card number", "password"),
            Field("holder", "Name on the card"),
            Field("expiry", "Expiry (MM/YY)"),
            Field("nickname", "Nickname (e.g. Everyday Visa), to tell your cards apart", required=False),
        ),
        entries=_card_entries,
    ),
    "traveller": ServiceForm(
        service="traveller",
        title="Add your traveller details",
        explanation="For flight bookings: Deputy fills these into the airline's form itself and never shows them "
        "to its AI; every booking that sends them asks you first. For a trip with others, add each of them "
        "with /connect traveller too, giving them a short name.",
        fields=(
            Field("name", "Full name, as on the passport"),
            Field("date_of_birth", "Date of birth (YYYY-MM-DD)", required=False),
            Field("passport_number", "Passport number", "password", required=False),
            Field("companion", "Someone travelling with you? A short name for them, e.g. Sam or partner "
                  "(leave empty for your own details)", required=False),
        ),
        entries=_traveller_entries,
    ),
    "key": ServiceForm(
        service="key",
        title="Add the key for a connected service",
        explanation="The API key, token or password the service gave you. It is stored encrypted and sent only "
        "to that service.",
        fields=(
            Field("secret", "Key, token or password", "password"),
            Field("username", "Username (only for services that ask for one)", required=False),
        ),
        entries=_key_entries,
    ),
    "email": ServiceForm(
        service="email",
        title="Connect your email",
        explanation="Works with any provider that offers IMAP and SMTP (use an app password where your provider "
        "has them). Deputy stores the password encrypted and never shows it to its AI.",
        fields=(
            Field("address", "Your email address", "email"),
            Field("username", "Login (usually your address)"),
            Field("password", "Password or app password", "password"),
            Field("smtp_host", "SMTP server (sending)"),
            Field("smtp_port", "SMTP port", "number", "465"),
            Field("imap_host", "IMAP server (reading)"),
            Field("imap_port", "IMAP port", "number", "993"),
            Field("security", "Security", "select", "ssl", ("ssl", "starttls", "none")),
        ),
        entries=_email_entries,
        servers=lambda v: [("SMTP server", v["smtp_host"], int(v["smtp_port"])),
                           ("IMAP server", v["imap_host"], int(v["imap_port"]))],
    ),
    "web": ServiceForm(
        service="web",
        title="Connect your website login",
        explanation="Deputy signs in to this site for you when a page asks: its AI only ever writes placeholders, "
        "and the password is sent to this site and nowhere else.",
        fields=(
            Field("site", "Website (e.g. shop.example.com)"),
            Field("username", "Username or email"),
            Field("password", "Password", "password"),
        ),
        entries=_web_entries,
    ),
    "calendar": ServiceForm(
        service="calendar",
        title="Connect your calendar",
        explanation="Any CalDAV calendar (Google, iCloud, Fastmail, Nextcloud...). The password is stored encrypted.",
        fields=(
            Field("url", "CalDAV address", "url"),
            Field("username", "Login"),
            Field("password", "Password or app password", "password"),
        ),
        entries=_calendar_entries,
        servers=lambda v: [("CalDAV address", v["url"], None)],
    ),
}


def validate(form: ServiceForm, raw: dict[str, str]) -> tuple[dict[str, str], list[str]]:
    """Cleaned values and a list of plain problems (empty when all is well)."""
    values: dict[str, str] = {}
    problems: list[str] = []
    for field in form.fields:
        value = (raw.get(field.name) or field.default).strip()
        if field.kind != "password":
            value = value[:300]
        if field.required and not value:
            problems.append(f"{field.label} is missing.")
        elif field.kind == "number" and not (value.isdigit() and 0 < int(value) < 65536):
            problems.append(f"{field.label} must be a port number.")
        elif field.kind == "email" and "@" not in value:
            problems.append(f"{field.label} doesn't look like an email address.")
        elif field.kind == "url" and not value.startswith(("https://", "http://")):
            problems.append(f"{field.label} must start with https://.")
        elif field.kind == "select" and value not in field.options:
            problems.append(f"{field.label} must be one of {', '.join(field.options)}.")
        values[field.name] = value
    if form.service == "web" and values.get("site") and not _valid_site(web_site(values["site"])):
        problems.append("Website must be a site's address, like shop.example.com.")
    if form.service == "traveller":
        values["passport_number"] = values.get("passport_number", "").upper()
        problems += _traveller_problems(values)
    if form.service == "card" and values.get("expiry"):
        problems += _card_problems(values, time.time())
    return values, problems


def _valid_site(host: str) -> bool:
    from deputy.vault import InvalidCredential, validate_handle

    try:
        validate_handle(f"cred:web/{host}")
    except InvalidCredential:
        return False
    return bool(host)

# The chat offers a link for each of these services without loading this page (it holds no form).
assert set(FORMS) == FORM_SERVICES, "keep connect_links.FORM_SERVICES in step with the forms"
