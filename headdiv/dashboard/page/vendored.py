"""Third-party scripts the dashboard serves itself, so that a first view waits on as little as possible.

- plotly.js in two bundles. Every chart but one is 2-D (scatter, bar, heatmap, histogram):
  `vendor/plotly-2d.min.js` holds just those trace types (built by `vendor/build-plotly-2d.sh` from the
  plotly.js release the installed `plotly` package writes figures for) and evaluates in a sixth of the
  full plotly.js's time, which the page would otherwise spend before its first chart. The full bundle
  (the `plotly` package's own file) is fetched only for a figure with another trace type (the Surfaces
  view's opt-in 3-D surface): `assets/plotly_bundles.js` stands in for `window.Plotly` and picks.
- The regenerator runtime (`vendor/regenerator-runtime.js`) in place of Dash's polyfill: that is core-js
  2 and the runtime together, and evaluating it takes 0.1 s of a first visit on two cores, while the
  only part Dash's bundles need in the browsers Dash supports is the runtime (`regeneratorRuntime`).

Each file is served under a name that changes with its content, gzipped once per process (not per
request), so browsers keep it for a year.
"""

from __future__ import annotations

import gzip
import hashlib
import re
from functools import cache
from pathlib import Path

import flask
import plotly
from dash import Dash
from plotly.offline import get_plotlyjs_version

VENDOR = Path(__file__).resolve().parents[1] / "vendor"
SMALL = VENDOR / "plotly-2d.min.js"
SMALL_TRACES = frozenset({"scatter", "bar", "heatmap", "histogram"})
"""The trace types the 2-D bundle holds (`Plotly.bundledTraces` in it; vendor/build-plotly-2d.sh)."""
FULL = Path(plotly.__file__).parent / "package_data" / "plotly.min.js"
RUNTIME = VENDOR / "regenerator-runtime.js"
ROUTE = "_headdiv/vendor/"
CACHE_CONTROL = "public, max-age=31536000, immutable"
POLYFILL = re.compile(r'<script src="[^"]*/deps/polyfill@[^"]*"></script>')
"""Dash's polyfill in the page's scripts (`deps/polyfill@7.<fingerprint>.12.1.min.js`)."""


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()[:12]


@cache
def _names() -> dict[str, Path]:
    """{URL file name: file}: ours named by their content, the full plotly.js by its release."""
    version = get_plotlyjs_version()
    return {
        f"plotly-2d-{version}.{_digest(SMALL)}.min.js": SMALL,
        f"plotly-{version}.min.js": FULL,
        f"regenerator-runtime.{_digest(RUNTIME)}.js": RUNTIME,
    }


@cache
def _gzipped(path: Path) -> bytes:
    return gzip.compress(path.read_bytes(), mtime=0)


def _url(app: Dash, path: Path) -> str:
    name = next(n for n, p in _names().items() if p == path)
    return str(app.config.requests_pathname_prefix) + ROUTE + name


def register(app: Dash) -> str:
    """Serve the files from `app`; return the tag for the page's head that names the plotly.js bundles
    (and has the browser fetch the 2-D one at once, alongside Dash's own scripts)."""
    names = _names()
    _gzipped(SMALL)  # now rather than in the first visitor's page load

    @app.server.route(app.config.routes_pathname_prefix + ROUTE + "<name>", endpoint="headdiv_vendored")
    def _file(name: str) -> flask.Response:
        path = names.get(name)
        if path is None:
            flask.abort(404)
        zipped = flask.request.accept_encodings["gzip"] > 0
        response = flask.Response(_gzipped(path) if zipped else path.read_bytes(), mimetype="text/javascript")
        if zipped:
            response.headers["Content-Encoding"] = "gzip"  # the server's GZipMiddleware leaves it as it is
        response.headers["Vary"] = "Accept-Encoding"
        response.headers["Cache-Control"] = CACHE_CONTROL
        return response

    small, full = _url(app, SMALL), _url(app, FULL)
    return f'<link rel="preload" as="script" href="{small}" id="plotly-bundles" data-full="{full}">'


def without_polyfill(app: Dash, scripts: str) -> str:
    """The page's script tags with Dash's polyfill replaced by the regenerator runtime (unchanged if Dash
    names its polyfill otherwise)."""
    return POLYFILL.sub(lambda _: f'<script src="{_url(app, RUNTIME)}"></script>', scripts, count=1)
