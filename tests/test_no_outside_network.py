"""Tests cannot reach beyond this machine by mistake: a real model or Telegram call fails the test."""

from __future__ import annotations

import asyncio
import socket

import httpx
import pytest

from tests_support import OutsideNetworkCall


def test_a_connection_to_a_remote_address_is_refused_at_once() -> None:
    with pytest.raises(OutsideNetworkCall, match="203.0.113.9:443"):
        socket.create_connection(("203.0.113.9", 443), timeout=5)


def test_a_client_pointed_at_a_remote_model_fails_instead_of_calling_it() -> None:
    with pytest.raises(httpx.ConnectError, match="tests talk only to local servers"):
        httpx.post("https://198.51.100.7/v1/chat/completions", json={}, timeout=5)


def test_asyncio_connections_are_refused_too() -> None:
    async def connect() -> None:
        await asyncio.open_connection("192.0.2.1", 80)

    with pytest.raises(OutsideNetworkCall):
        asyncio.run(connect())


def test_local_servers_are_reachable(redis) -> None:
    assert redis.ping()
