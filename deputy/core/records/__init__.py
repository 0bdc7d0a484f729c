"""The records every process shares: actions, effects and operation specs, job payloads, the outbox,
hand-offs, receipts, erasure, the send window and Undo, and Deputy's own notes."""
