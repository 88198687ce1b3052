"""Shared machinery that is no vocabulary: caches and request identity every door uses (torch-free).

It sits just above the schemas (`kept` reads the engine settings there) and below the job protocol, so the
engine, the jobs' memory cache, the API and the dashboard can all import it.

- `lru`: the one least-recently-used map bounded by the total size of its values.
- `kept`: work that is the same at every start, kept on disk once per installed version.
- `vouching`: how a dashboard tells the API whose request it makes.
"""
