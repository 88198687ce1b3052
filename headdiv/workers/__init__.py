"""headdiv compute side: the torch engine (`headdiv.workers.engine`) and the queue worker (`headdiv.workers.queue`).

Importing this package is cheap: torch is only imported by `headdiv.workers.engine`.
"""

from headdiv.version import __version__

__all__ = ["ENGINE_VERSION", "__version__"]
ENGINE_VERSION = "4"
"""Bumped whenever the engine's numbers change: it is part of every job id and cache key."""
