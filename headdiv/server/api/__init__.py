"""The HTTP API: one router per domain under `/api/v1`.

- `router`: all API routers under /api/v1, and the JSON 404/405 for any other /api path.
- `routes`: the routers, one per domain.
- `deps`: what the routes receive: the settings and the job backend chosen at start-up.
- `responses`: how job states become HTTP responses, and the `?wait=` loop they share.
- `query_text`: query strings read as the numbers and booleans a JSON body would hold.
- `heavy`: CPU-heavy requests answered inline: a bounded number at once, off the event loop, under a time limit.
- `error_handlers`: error handlers: every bad request gets a JSON answer naming the field and the reason, never a 500.
- `limits`: request body limits: size (413) and time (408).
- `origin`: uploads only from this site's own pages or from clients that say so (a cross-site request forgery guard).
- `security`: security headers on every response, the Content-Security-Policy among them.
- `openapi_schema`: the published schema says what the API enforces (unknown multipart form fields are refused).
- `docs_pages`: /docs (Swagger UI) served from the installed `fastapi-offline` package, so it works offline.
"""
