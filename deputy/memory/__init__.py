"""Per-user memory: preferences and facts Deputy keeps across goals, with provenance."""

from deputy.memory.ranking import rank
from deputy.memory.store import CORRECTED, MemoryItem, MemoryKind, MemoryStore, MemoryTrust

__all__ = ["CORRECTED", "MemoryItem", "MemoryKind", "MemoryStore", "MemoryTrust", "rank"]
