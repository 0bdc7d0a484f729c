"""The guard's records in Redis: submitted actions, approvals, the audit trail, the user's rules."""
