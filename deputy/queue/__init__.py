"""Queue mechanics: RQ job functions, dispatch, in-flight leases and the watchdog, inline runs."""
