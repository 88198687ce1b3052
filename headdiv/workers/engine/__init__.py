"""The torch compute engine: validated requests in, the numbers of docs/model.md out.

Each module is imported by name where it is needed (no re-exports here, so importing a torch-free
module such as `multicell` or `theory` never loads torch).

Its tables and the types it owns (torch-free, but for `dispatch`, whose runners load torch):
- `entries`: the one entry type of the tables: a request model, its result model, the function from one to the other.
- `dispatch`: the runner table: each job kind not made of cells, with its one runner.
- `multicell`: a multi-cell job's result assembled from its cells' summaries (`ASSEMBLERS`; NumPy and SciPy only).
- `hooks`: what a caller hands a long computation (progress, cancel, device, partial results); a runner's shape.
- `result_building`: where a result leaves the engine: built as its pydantic model, or a readable `EngineError`.

A simulation:
- `simulation`: `simulate(scenario)`, one Monte Carlo run; `simulate_many(scenarios)`, many, batched
  where the NW step's shapes agree.
- `montecarlo`: batched Monte Carlo: every head's NW estimate at every query, for every training set.
- `batch_plan`: a batch's plan, fixed before its first draw: its heads gathered into units, cut into NW calls.
- `batch_moments`: the decomposition's sums for every cell of a batch at once, on the device, in float64.
- `draws`: what a batch's Monte Carlo hands over (`BatchDraws`), and one cell's as float64 NumPy (`Draws`).
- `decomposition`: the bias-variance-covariance decomposition of docs/model.md section 4, in float64 NumPy.
- `nw`: the Nadaraya-Watson step (and `warm_up`: compiled, or loaded as an earlier start kept it).
- `kernel_build`: the NW step's compiled kernels built as AOTInductor packages and kept for the next start.
- `keymaps`: key maps: how a head (or a big head) turns points into keys, many heads at once.
- `head_layouts`: each registered geometry's builder: its heads as NumPy arrays, in blocks or dense.
- `geometry`: head projections as the engine computes with them: keys, overlaps, principal angles, the big head.
- `sampling`: seeded draws: training sets, query points and random heads.
- `target_tensors`: the signal direction a and the targets m(x) = f(a . x) on tensors.
- `device`: which device and dtype the engine computes on.

Reports and labs:
- `diversity`: HDI, overlaps and principal angles of any head matrices (float64 NumPy).
- `theory`: the closed-form curves of docs/model.md section 7 and their fits to simulations.
- `covariance`, `training`: the runners of those labs (Lemma 4.1 against the measured covariance; the training lab).
- `foundations`: the foundations lessons.
- `speed`: `measure_speed`: how fast this process runs the engine, in work units per second.

The server reaches the synchronous ones through `headdiv.workers.instant_reports`, and jobs through the runner
(`headdiv.workers.runner`, with `headdiv.workers.assembly`).
"""
