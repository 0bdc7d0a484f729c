"""Plumbing with no opinion about goals: Redis clients and addresses, metrics, clocks, free ports,
signed buttons and atomic changes."""
