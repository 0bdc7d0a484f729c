"""How far an operation got, told to whoever runs it (the executor records it).

If the executor dies midway, what was recorded is all anyone knows: the user's card says
it ("the mail server accepted the connection; I can't tell whether the email went out").
Connectors call `report` at the steps that change what can be said; outside the executor
nobody listens and it does nothing.
"""

from __future__ import annotations

from contextlib import contextmanager
from contextvars import ContextVar
from typing import Callable, Iterator

_listener: ContextVar[Callable[[str], None] | None] = ContextVar("operation_progress", default=None)


def report(note: str) -> None:
    """Say how far the running operation got, in words a user understands."""
    listener = _listener.get()
    if listener is not None:
        listener(note)


@contextmanager
def listening(listener: Callable[[str], None]) -> Iterator[None]:
    token = _listener.set(listener)
    try:
        yield
    finally:
        _listener.reset(token)
