"""What the engine answers, as pydantic models: every job kind's result and every report's.

The engine builds these and nothing else leaves it (so a result is validated where it is made); the API
names them in its OpenAPI schema, the CLI prints them and the dashboard reads their fields. Torch-free.

- `result_parts`: the parts several results share (`ResultModel`, the base of every result).
- `simulation_results`: one simulation (one cell): every number of docs/model.md sections 4-6.
- `sweep_results`: the jobs made of cells: a surface, an architecture, a diversity sweep.
- `lab_results`: the labs computed by their own engine runner: the covariance lemma, training.
- `report_results`: the reports answered at once: HDI of given heads, the theory curves, trained models.
- `lesson_results`: the answers of the Foundations lessons: scaling, softmax, entropy, budget.
"""
