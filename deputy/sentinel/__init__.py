"""Sentinel, the guard: reviews every external action before the executor runs it.

The modules directly in this package are pure decisions (no Redis, no network):
`policy.review` is the decision core, with `provenance`, `textflow`, `intent`, `rules`,
`navigation`, `origins`, `action_lifecycle`, `cards` and the injection `detectors`.
`stores` keeps the guard's records in Redis (actions, approvals, the audit trail, rules);
`egress` guards outgoing network requests (a pure policy, and `egress.transports` that
plug it into httpx, niquests, sockets and Chromium).
"""

from deputy.sentinel.policy import Decision, ReviewContext, Risk, Verdict, review

__all__ = ["Decision", "ReviewContext", "Risk", "Verdict", "review"]
