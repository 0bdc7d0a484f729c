"""imaplib and smtplib clients whose TCP connection is opened by someone else: the egress guard.

The standard library clients resolve the host name and connect in one step
(`socket.create_connection`). These subclasses hand that step to an injected `opener`
(in the executor, `EndpointGuard.connect`, which checks the server's addresses against
the egress policy and connects to the checked IP only) and keep everything else:
the host name still goes to TLS as the server name (SNI and the certificate check) and
to STARTTLS, so pinning the address weakens nothing.
"""

from __future__ import annotations

import imaplib
import smtplib
import socket
import ssl
from collections.abc import Callable

SocketOpener = Callable[[str, int, "float | None"], socket.socket]
"""(host, port, timeout) -> a connected TCP socket."""


def direct_connection(host: str, port: int, timeout: float | None) -> socket.socket:
    """What the standard library does on its own: resolve and connect, unreviewed."""
    return socket.create_connection((host, port), timeout)


class OpenedIMAP4(imaplib.IMAP4):
    def __init__(self, host: str, port: int, *, opener: SocketOpener, timeout: float | None = None) -> None:
        self._opener = opener  # before super().__init__, which connects
        super().__init__(host, port, timeout=timeout)

    def _create_socket(self, timeout: float | None) -> socket.socket:
        return self._opener(self.host, self.port, timeout)


class OpenedIMAP4_SSL(imaplib.IMAP4_SSL):
    def __init__(
        self, host: str, port: int, *, opener: SocketOpener, ssl_context: ssl.SSLContext, timeout: float | None = None
    ) -> None:
        self._opener = opener
        super().__init__(host, port, ssl_context=ssl_context, timeout=timeout)

    def _create_socket(self, timeout: float | None) -> socket.socket:
        sock = self._opener(self.host, self.port, timeout)
        return self.ssl_context.wrap_socket(sock, server_hostname=self.host)


class OpenedSMTP(smtplib.SMTP):
    def __init__(self, host: str, port: int, *, opener: SocketOpener, timeout: float) -> None:
        self._opener = opener
        super().__init__(host, port, timeout=timeout)

    def _get_socket(self, host: str, port: int, timeout: float | None) -> socket.socket:
        return self._opener(host, port, timeout)


class OpenedSMTP_SSL(smtplib.SMTP_SSL):
    def __init__(self, host: str, port: int, *, opener: SocketOpener, timeout: float, context: ssl.SSLContext) -> None:
        self._opener = opener
        super().__init__(host, port, timeout=timeout, context=context)

    def _get_socket(self, host: str, port: int, timeout: float | None) -> socket.socket:
        sock = self._opener(host, port, timeout)
        return self.context.wrap_socket(sock, server_hostname=self._host)
