"""One router per domain; `headdiv.server.api.router` gathers them under /api/v1.

- `computations_routes`: the long computations, submitted as jobs: one route per job kind of `headdiv.jobs.kinds`.
- `jobs_routes`: poll and cancel jobs by id.
- `hdi_routes`: POST /hdi: head diversity of any list of matrices, answered at once.
- `theory_routes`: GET /theory/architecture: the closed-form curves (cheap, no job).
- `foundations_routes`: the foundations lessons: one GET and one POST route per lesson.
- `models_routes`: trained models' HDI: built-in example models, the server's own models, safetensors uploads.
- `health_routes`: GET /health: is the service able to take work, where does it cache and compute.
- `polls_routes`: class polls for a guided tour's prediction questions: open one, answer it, read its counts.
- `rooms_routes`: rooms: a lecturer's page and the phones that follow it.
"""
