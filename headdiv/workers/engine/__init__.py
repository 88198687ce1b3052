"""The torch compute engine: validated requests in, the numbers of docs/model.md out.

Each module is imported by name where it is needed (no re-exports here, so importing a torch-free
module such as `assemble` or `theory` never loads torch):

- `simulation`: `simulate(scenario)`, one Monte Carlo run; `simulate_many(scenarios)`, many, batched
  where the NW step's shapes agree.
- `assemble`: a multi-cell job's result from its cells' summaries (NumPy and SciPy only).
- `runners`: the job kinds not made of cells, each request model with its one runner.
- `covariance`, `training`: those runners (Lemma 4.1 against the measured covariance; the training lab).
- `theory`: closed-form curves of docs/model.md section 7. `diversity`: HDI, overlaps, principal angles.
- `foundations`: the foundations lessons. `nw`: the NW step (and `warm_up`). `speed`: `measure_speed`.
- `hooks`: what a caller hands a long computation (progress, cancel, device, partial results).

The server reaches the synchronous ones through `headdiv.workers.instant_reports`, and jobs through the job
protocol (`headdiv.workers.runner`).
"""
