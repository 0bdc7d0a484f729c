"""The private web view of a user's goals, actions, audit trail and money (`deputy web-view`)."""

from deputy.webview.app import COOKIE, create_app

__all__ = ["COOKIE", "create_app"]
