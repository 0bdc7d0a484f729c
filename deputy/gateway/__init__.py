"""The model gateway: one asyncio process holding many model calls in flight at once.

`gateway` reads model requests and hands the answers back; `endpoint_slots` and
`fair_queue` share an endpoint's capacity fairly between users; `wait_notices` says
what a waiting user is told. It holds no credentials and runs no action.
"""
