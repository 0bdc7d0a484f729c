"""/connect web: the login a user saves on the private page is what the web connector signs in with."""

from __future__ import annotations

from deputy.connectors.web.logins import VaultLogins
from deputy.credential_page.forms import FORMS, validate
from deputy.vault import Vault


def test_a_saved_website_login_is_used_on_that_site_only(vault: Vault) -> None:
    form = FORMS["web"]
    values, problems = validate(form, {"site": "https://Shop.Example.com/login", "username": "ann@example.org",
                                       "password": "s3cret-pass"})
    assert problems == []
    for entry in form.entries(values):
        vault.put(7, entry.handle, entry.secret, "password", entry.label, public=entry.public)
    logins = VaultLogins(vault)
    login = logins.login_for(7, "www.shop.example.com")
    assert login is not None and login.username == "ann@example.org"
    assert login.password.get_secret_value() == "s3cret-pass"
    assert login.allowed_on("shop.example.com") and not login.allowed_on("example.org")
    assert not logins.has_login(7, "other.example") and not logins.has_login(8, "shop.example.com")


def test_a_website_that_is_not_an_address_is_refused_plainly() -> None:
    _, problems = validate(FORMS["web"], {"site": "my bank!!", "username": "a", "password": "b"})
    assert problems == ["Website must be a site's address, like shop.example.com."]
