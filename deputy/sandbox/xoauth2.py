"""XOAUTH2 for the sandbox's mail servers: SMTP and IMAP accept the sandbox provider's tokens.

SMTP: `XOAuth2Handler` adds the XOAUTH2 mechanism to aiosmtpd and needs the `mail.send`
scope. IMAP: `ImapOAuthFront` is a small front door before pymap (which knows only
passwords): it answers `AUTHENTICATE XOAUTH2` itself, checks the token (`mail.read`), logs
in to pymap as the token's user, then relays the session, refusing `APPEND` (writing a
draft) without `mail.draft`. Expired, revoked, unknown and out-of-scope tokens are refused
as a real provider's servers refuse them.
"""

from __future__ import annotations

import asyncio
import base64
import logging
import re
import threading
from typing import Callable

log = logging.getLogger(__name__)

TokenCheck = Callable[..., str]
"""`check(access_token, scope, user=None) -> user`, raising on a token that must be refused
(`deputy.sandbox.oauth_provider.OAuthProvider.check`)."""
_LITERAL = re.compile(rb"\{(\d+)(\+?)\}\r\n$")


def parse_xoauth2(raw: bytes) -> tuple[str, str] | None:
    """(user, access token) from a decoded XOAUTH2 initial response, or None when malformed."""
    fields = dict(part.split("=", 1) for part in raw.decode("utf-8", "replace").split("\x01") if "=" in part)
    auth = fields.get("auth", "")
    if not fields.get("user") or not auth.startswith("Bearer "):
        return None
    return fields["user"], auth.removeprefix("Bearer ").strip()


def xoauth2_string(user: str, token: str) -> bytes:
    """The XOAUTH2 initial client response, before base64."""
    return f"user={user}\x01auth=Bearer {token}\x01\x01".encode()


def _decode(line: bytes) -> tuple[str, str] | None:
    try:
        return parse_xoauth2(base64.b64decode(line.strip(), validate=True))
    except ValueError:
        return None


class XOAuth2Handler:
    """Mixed into the SMTP handler when the server takes tokens (aiosmtpd finds `auth_*` methods)."""

    token_check: TokenCheck

    async def auth_XOAUTH2(self, server, args: list[str]):  # noqa: N802 (aiosmtpd's naming)
        from aiosmtpd.smtp import MISSING, AuthResult

        if len(args) > 1:
            response: object = args[1].encode()
        else:
            response = await server.challenge_auth("")
            if response is MISSING:
                return AuthResult(success=False, handled=True)
            response = base64.b64encode(response)
        parsed = _decode(response)
        if parsed is None:
            return AuthResult(success=False, handled=False, message="501 5.5.2 Malformed XOAUTH2 response")
        user, token = parsed
        try:
            self.token_check(token, "mail.send", user)
        except Exception as exc:  # the provider's TokenRefused: say why, as Gmail does
            return AuthResult(success=False, handled=False, message=f"535 5.7.8 Token refused: {exc}")
        return AuthResult(success=True, auth_data=user)


class ImapOAuthFront:
    """Listens on its own port in a thread; `upstream` is pymap's (host, port); `password_for(user)` gives
    pymap's password for a mailbox (the front door logs in on the token holder's behalf)."""

    def __init__(self, upstream: tuple[str, int], check: TokenCheck, password_for: Callable[[str], str],
                 host: str = "127.0.0.1") -> None:
        self._upstream = upstream
        self._check = check
        self._password_for = password_for
        self.host = host
        self.port = 0
        self._loop: asyncio.AbstractEventLoop | None = None
        self._server: asyncio.AbstractServer | None = None
        self._ready = threading.Event()

    def start(self) -> int:
        threading.Thread(target=self._run, name="imap-oauth-front", daemon=True).start()
        if not self._ready.wait(10):
            raise RuntimeError("the IMAP front door did not start")
        return self.port

    def stop(self) -> None:
        loop = self._loop
        if loop is not None and self._server is not None:
            loop.call_soon_threadsafe(self._server.close)
            loop.call_soon_threadsafe(loop.stop)

    def _run(self) -> None:
        loop = self._loop = asyncio.new_event_loop()
        self._server = loop.run_until_complete(asyncio.start_server(self._session, self.host, 0))
        self.port = self._server.sockets[0].getsockname()[1]
        self._ready.set()
        loop.run_forever()

    async def _session(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            up_reader, up_writer = await asyncio.open_connection(*self._upstream)
        except OSError:
            writer.write(b"* BYE the mail store is not answering\r\n")
            writer.close()
            return
        try:
            writer.write(_with_xoauth2(await up_reader.readline()))
            token = await self._before_login(reader, writer, up_reader, up_writer)
            if token is not None:
                pipe = asyncio.ensure_future(_pipe(up_reader, writer))
                await self._after_login(token, reader, writer, up_writer)
                pipe.cancel()
        except (OSError, asyncio.IncompleteReadError):
            pass
        finally:
            for w in (writer, up_writer):
                w.close()

    async def _before_login(self, reader, writer, up_reader, up_writer) -> str | None:
        """Until logged in; the token ("" after a password login), or None when the client left."""
        while line := await reader.readline():
            parts = line.split(None, 3)
            command = parts[1].upper() if len(parts) > 1 else b""
            if command == b"AUTHENTICATE" and len(parts) > 2 and parts[2].upper().strip() == b"XOAUTH2":
                tag = parts[0]
                if len(parts) > 3:
                    answer = parts[3]
                else:
                    writer.write(b"+ \r\n")
                    answer = await reader.readline()
                parsed = _decode(answer)
                if parsed is None:
                    writer.write(tag + b" BAD malformed XOAUTH2 response\r\n")
                    continue
                user, token = parsed
                try:
                    self._check(token, "mail.read", user)
                except Exception as exc:
                    writer.write(tag + f" NO [AUTHENTICATIONFAILED] Token refused: {exc}\r\n".encode())
                    continue
                secret = self._password_for(user).replace("\\", "\\\\").replace('"', '\\"')
                up_writer.write(tag + f' LOGIN "{user.lower()}" "{secret}"\r\n'.encode())
                ok = await _relay_until(tag, up_reader, writer)
                if ok:
                    return token
                continue
            up_writer.write(line)
            if _LITERAL.search(line):  # a LOGIN with a literal: let the two sides talk it through
                writer.write(await up_reader.readline())
                up_writer.write(await reader.readline())
            ok = await _relay_until(parts[0] if parts else b"", up_reader, writer)
            if ok and command in (b"LOGIN", b"AUTHENTICATE"):
                return ""
            if command == b"LOGOUT":
                return None
        return None

    async def _after_login(self, token: str, reader, writer, up_writer) -> None:
        while line := await reader.readline():
            parts = line.split(None, 2)
            command = parts[1].upper() if len(parts) > 1 else b""
            refusal = None
            if token and command in (b"APPEND", b"UID") and (command == b"APPEND" or b"APPEND" in line.upper()):
                try:
                    self._check(token, "mail.draft")
                except Exception as exc:
                    refusal = f" NO [NOPERM] Token refused: {exc}\r\n".encode()
            while (literal := _LITERAL.search(line)) is not None:
                size, non_sync = int(literal.group(1)), literal.group(2) == b"+"
                if refusal is not None and not non_sync:
                    break  # the client waits for "+" before the literal: it never comes
                if refusal is None:
                    up_writer.write(line)
                    up_writer.write(await reader.readexactly(size))
                else:
                    await reader.readexactly(size)
                line = await reader.readline()
            if refusal is not None:
                writer.write(parts[0] + refusal)
                continue
            up_writer.write(line)


def _with_xoauth2(line: bytes) -> bytes:
    if b"CAPABILITY" in line.upper() and b"AUTH=XOAUTH2" not in line:
        return re.sub(rb"(CAPABILITY[^\]\r\n]*)", rb"\1 AUTH=XOAUTH2", line, count=1, flags=re.IGNORECASE)
    return line


async def _relay_until(tag: bytes, up_reader, writer) -> bool:
    """Relay the server's answer up to the tagged line; whether it was OK."""
    while line := await up_reader.readline():
        writer.write(_with_xoauth2(line))
        if line.startswith(tag + b" "):
            return line[len(tag) + 1:].upper().startswith(b"OK")
    raise asyncio.IncompleteReadError(b"", None)


async def _pipe(source: asyncio.StreamReader, sink: asyncio.StreamWriter) -> None:
    with_suppressed = (OSError, asyncio.CancelledError)
    try:
        while data := await source.read(65536):
            sink.write(data)
            await sink.drain()
    except with_suppressed:
        pass
    finally:
        sink.close()
