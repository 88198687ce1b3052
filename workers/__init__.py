"""headdiv compute side: the torch engine (`workers.engine`) and the queue worker (`workers.queue`).

Importing this package is cheap: torch is only imported by `workers.engine`.
"""

__version__ = "0.1.0"
ENGINE_VERSION = "2"
"""Bumped whenever the engine's numbers change: it is part of every job id and cache key."""
