"""Per-user memory: preferences and facts Deputy keeps across goals, with provenance."""

from memory.ranking import rank
from memory.store import CORRECTED, MemoryItem, MemoryKind, MemoryStore, MemoryTrust

__all__ = ["CORRECTED", "MemoryItem", "MemoryKind", "MemoryStore", "MemoryTrust", "rank"]
