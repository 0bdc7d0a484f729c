"""Identifiers: short, random, URL-safe."""

import secrets


def new_id(prefix: str) -> str:
    """A random id such as `g_Xk3...`: 12 URL-safe characters after the prefix."""
    return f"{prefix}_{secrets.token_urlsafe(9)}"
