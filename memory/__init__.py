"""Per-user memory: preferences and facts Deputy keeps across goals, with provenance."""

from memory.ranking import rank
from memory.store import MemoryItem, MemoryKind, MemoryStore, MemoryTrust

__all__ = ["MemoryItem", "MemoryKind", "MemoryStore", "MemoryTrust", "rank"]
