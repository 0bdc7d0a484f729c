"""Deputy on WhatsApp (Cloud API): the same bot core as Telegram, adapted at the transport.

Meta's webhook deliveries are verified (:mod:`whatsapp.signature`), claimed once and turned
into Telegram-shaped updates (:mod:`whatsapp.inbound`) that the bot's own Application
handles; its Bot API calls are carried out as Graph API messages (:mod:`whatsapp.request`,
:mod:`whatsapp.outbound`) within WhatsApp's 24-hour window (:mod:`whatsapp.sender`).
"""

from whatsapp.surface import WhatsAppConfig, serve

__all__ = ["WhatsAppConfig", "serve"]
