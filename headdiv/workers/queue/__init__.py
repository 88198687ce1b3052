"""The RQ side of scaled mode: the task a worker runs (`tasks.run`) and the worker itself (`worker.run_worker`).

- `tasks`: the functions RQ runs: compute a job, publish progress, honour cancel, cache the result.
- `worker`: `headdiv worker`: an RQ worker that loads torch once, never forks, and keeps its job visibly alive.
- `worker_settings`: the worker's settings: the job settings both sides share, plus how politely it computes.
- `device_info`: the worker's device, named for people, and its memory at each heartbeat (it loads torch).
"""
