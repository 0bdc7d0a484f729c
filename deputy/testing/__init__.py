"""Rigs for tests, evaluations and benchmarks: `InlineDeputy` and the dispatch doubles (`inline`), every
process started for real (`stack`, `whatsapp_stack`), Redis failover (`redis_failover`) and the
crash tests (`chaos`, `chaos_checks`, `bot_crash`). No process of a running Deputy loads these."""
