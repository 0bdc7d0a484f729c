"""What every part of Deputy shares, at the bottom of the layout: nothing here imports any other
Deputy package.

`records` (actions, effects, payloads, the outbox, hand-offs, erasure, the send window and Undo),
`accounts` (users, plans and quotas, settings, connect links, what a user connected),
`infrastructure` (Redis clients, metrics, clocks, ports, signed buttons), `confidential` (the
user-held keys of confidential mode) and `secret_scan` (secrets typed into the chat).
"""
