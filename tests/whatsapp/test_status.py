"""Status callbacks: a failed message is logged with WhatsApp's code and title, nothing personal."""

from __future__ import annotations

import logging

from deputy.whatsapp.webhook import _log_status


def test_a_failed_message_is_logged_with_its_reason_and_without_the_number(caplog) -> None:
    caplog.set_level(logging.DEBUG, logger="deputy.whatsapp.webhook")
    _log_status({"id": "wamid.ABC", "status": "failed", "recipient_id": "15550004321", "timestamp": "1",
                 "errors": [{"code": 131026, "title": "Message undeliverable",
                             "error_data": {"details": "Bearer EAAG-secret-token"}}]})
    [record] = [r for r in caplog.records if r.levelno == logging.WARNING]
    assert "wamid.ABC" in record.getMessage() and "131026 Message undeliverable" in record.getMessage()
    assert "15550004321" not in caplog.text and "secret" not in caplog.text
    _log_status({"id": "wamid.DEF", "status": "delivered", "recipient_id": "15550004321"})
    assert not [r for r in caplog.records if r.levelno >= logging.WARNING and "DEF" in r.getMessage()]
