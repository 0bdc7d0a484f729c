"""Deputy on WhatsApp (Cloud API): the same bot core as Telegram, adapted at the transport.

Meta's webhook deliveries are verified (:mod:`deputy.whatsapp.signature`), claimed once and turned
into Telegram-shaped updates (:mod:`deputy.whatsapp.inbound`) that the bot's own Application
handles; its Bot API calls are carried out as Graph API messages (:mod:`deputy.whatsapp.request`,
:mod:`deputy.whatsapp.outbound`) within WhatsApp's 24-hour window (:mod:`deputy.whatsapp.sender`).
"""

from deputy.whatsapp.surface import WhatsAppConfig, serve

__all__ = ["WhatsAppConfig", "serve"]
