"""The executor: the only process that runs external actions, and the only one with credentials.

`executor` reviews each submitted action with Sentinel and runs what is allowed;
`review_context` gathers what the review needs; `credentials` and `payments` open the
vault at call time; `handoffs`, `custom_connectors`, `connections` and `erasure` are the
other jobs that need the vault; `outcome_unknown` is the card of a run cut off midway.
"""
