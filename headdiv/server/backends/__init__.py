"""Where jobs run: in this process (`inline`, embedded mode) or on an RQ queue (`rq`, scaled mode), one protocol
(`backend_protocol`).

- `backend_protocol`: the one protocol both job backends follow, so routes never know which mode they run in.
- `inline`: the embedded runner: a small thread pool in this process and an in-memory job table.
- `rq`: scaled mode: results in Redis, jobs on an RQ queue run by `headdiv worker` processes.
- `rq_fanout`: a job made of many cells enqueued as chunk jobs any worker may take.
- `rq_records`: what RQ recorded of a job that ended, as the job's state or its reason.
- `rq_upkeep`: scaled mode's background threads: RQ's maintenance, and the listener that wakes the long-polls.
- `accepted`: the jobs one API process accepted, so that a job the queue lost is enqueued again when asked for.
- `watch`: watching jobs for `?wait=`, woken by the runner's announcements.
"""
