"""The job protocol, shared by the API that submits jobs and the workers that run them (no torch here).

- `kinds`: the job kinds, each declared once (request model, route, subcommand);
- `runner`: `run`, the one function that computes a job and publishes its record as it goes (the
  embedded backend's threads, the RQ task and the command line all call it);
- `cells`, `assembly`: a job's cells (expanded, hashed and looked up once) and its result from them;
- `state`: the one typed job state (the API's answer, both backends' record, the dashboard's view);
- `ids`, `keys`: job identity and the Redis key names both sides use;
- `failures`: what a job raised, as a reason the user can read;
- `cache`: the result cache, in memory (embedded) or in Redis (scaled);
- `redis_client`, `settings`, `queue`: the connection, the shared settings and the queue's conventions.
"""
