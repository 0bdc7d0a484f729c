"""Suggestions from the user's interests: opt-in, matched by code and meaning, capped per week."""
