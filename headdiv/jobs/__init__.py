"""The job protocol, shared by the API that submits jobs, the workers that run them and the pages that show
them (torch-free: it sits below the engine, and everyone above imports it without an exception).

- `kinds`: the job kinds, each declared once (request model, route, subcommand);
- `state`: the one typed job state (the API's answer, both backends' record, the dashboard's view);
- `cells`: a job's cells, expanded, hashed and looked up once;
- `ids`, `keys`: job identity and the Redis key names both sides use;
- `failures`: what a job raised, as a reason the user can read;
- `cache`: the result cache protocol, in memory (embedded) or in Redis (scaled);
- `redis_client`, `settings`, `rq_conventions`, `worker_info`: the connection, the shared settings, the
  queue's task names and worker names, and what a worker says about itself at each heartbeat.

The runner that computes a job (`headdiv.workers.runner`) and a multi-cell result's assembly
(`headdiv.workers.assembly`) call the engine, and so live on the compute side.
"""
