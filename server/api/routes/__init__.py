"""One router per domain; `server.api.router` gathers them under /api/v1."""
