"""The egress guard's IO edges: each client library's requests pass through the pure policy."""
