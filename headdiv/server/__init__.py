"""headdiv service side: the FastAPI app, job submission, the cache, and the `headdiv` command line.

The version lives in `headdiv.version` so the engine, the worker and the API always report the same one.
"""

from headdiv.version import __version__

__all__ = ["__version__"]
