"""The executor: the only process that runs external actions, and the only one with credentials.

`executor` reviews each submitted action with Sentinel and runs what is allowed;
`approval_cards` posts (and expires) the cards for what it must ask about;
`review_context` gathers what the review needs; `cart_lines` reads a cart before its card; `credentials` and `payments` open the
vault at call time; `handoffs`, `custom_connectors`, `connections` and `erasure` are the
other jobs that need the vault; `outcome_unknown` is the card of a run cut off midway.
"""
