"""One router per domain; `headdiv.server.api.router` gathers them under /api/v1."""
