"""Free local ports, for the processes Deputy starts on this machine (`deputy run`, the sandbox, tests).

The operating system picks a port that is free now; another process may take it before the
caller binds it, which is acceptable for local runs and tests, never for a deployment.
"""

from __future__ import annotations

import socket


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on at this moment."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]
