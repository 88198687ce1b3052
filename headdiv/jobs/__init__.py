"""The job protocol, shared by the API that submits jobs, the workers that run them and the pages that show
them (torch-free: it sits below the engine, and everyone above imports it without an exception).

- `kinds`: the job kinds, each declared once (request model, route, subcommand);
- `state`: the one typed job state (the API's answer, both backends' record, the dashboard's view);
- `cells`: a job's cells, expanded, hashed and looked up once;
- `ids`: job identity, one hash of the canonical request, so identical work is done once;
- `keys`: the Redis key names both sides use, namespaced and versioned by the engine;
- `failures`: what a job raised, as a reason the user can read;
- `cache`: the result cache protocol, in memory (embedded) or in Redis (scaled);
- `redis_client`: Redis connections with short timeouts;
- `job_settings`: the settings both sides of a job read (where the queue and the cache are, their timing);
- `rq_conventions`: the queue's conventions the API and the workers share (task names, worker names);
- `worker_info`: what a worker says about itself at each heartbeat, and how the API reads it back.

The runner that computes a job (`headdiv.workers.runner`) and a multi-cell result's assembly
(`headdiv.workers.assembly`) call the engine, and so live on the compute side.
"""
