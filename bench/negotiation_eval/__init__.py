"""Sandbox negotiations run end to end with scripted negotiators (`agents`, `scenarios`)."""
