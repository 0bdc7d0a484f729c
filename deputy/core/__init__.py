"""The records and vocabulary every part of Deputy shares, at the bottom of the layout.

`actions` (what the agent asks to do), `effects` (effect classes, risk tags, operation
specs and the connector error family), `payloads` (typed job payloads), `ids`, `outbox`
(messages for the chat), `user_settings`, `handoff` (pages that need the human),
`connect_links` (one-time links to the connect page), `erasure` (what erasing a user asks
of every store), `clock` (a manual clock for tests), `redis_clients`, `ports` (free local
ports), `credential_index` (what a user connected, readable without the vault key),
`vault_errors` and `card_numbers` (the Luhn check). Nothing here imports any other Deputy
package.
"""
