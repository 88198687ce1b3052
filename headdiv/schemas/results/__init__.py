"""What the engine answers, as pydantic models: every job kind's result and every report's.

The engine builds these and nothing else leaves it (so a result is validated where it is made); the API
names them in its OpenAPI schema, the CLI prints them and the dashboard reads their fields. Torch-free.
`simulation` (one cell), `sweeps` (surface, architecture, diversity sweep), `labs` (covariance,
training), `reports` (HDI, theory, trained models) and `lessons` (Foundations).
"""
