"""The one version of headdiv: the package, the engine, the worker and the API all report it (a leaf
module: importing it imports nothing else of headdiv)."""

__version__ = "0.1.0"
ENGINE_VERSION = "4"
"""Bumped whenever the engine's numbers change: it is part of every job id and cache key (`headdiv.jobs`)."""
