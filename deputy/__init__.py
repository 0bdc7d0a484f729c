"""Deputy: a personal AI agent you text goals to; a guard (Sentinel) reviews every action it takes.

One import root whose rooms are the processes (`apps`) and what they are built from; see
docs/architecture.md for each room, what it may import and which process loads it.
"""
