"""The RQ side of scaled mode: the task a worker runs (`tasks.run`) and the worker itself (`worker.run_worker`)."""
