"""The HTTP API: one router per domain under `/api/v1`."""
