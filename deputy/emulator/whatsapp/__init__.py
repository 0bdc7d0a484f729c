"""A local WhatsApp Cloud API emulator with a WhatsApp-like chat page.

It answers the Graph API calls Deputy makes (messages, media upload and download) and
enforces WhatsApp's rules (button and list limits, approved templates and their parameter
format, the 24-hour window, media types and sizes, the pair rate limit, users with a username
and no phone number; see :class:`~deputy.emulator.whatsapp.rules.WaRules` to relax one),
delivers users' messages and status callbacks to the webhook signed with the app secret
(retrying what is not answered 200 in time, after growing pauses), and offers a user-side HTTP
API (``/api/users/...``) and the page at ``/`` to act as a WhatsApp user.
"""

from deputy.emulator.whatsapp.server import WaEmulatorConfig, create_app, run

__all__ = ["WaEmulatorConfig", "create_app", "run"]
