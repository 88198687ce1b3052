#!/bin/sh
# Rebuilds plotly-2d.min.js: plotly.js with only the trace types of the dashboard's 2-D charts (scatter,
# bar, heatmap, histogram). Most of the full plotly.js is trace types the dashboard never draws, and the page
# evaluates all of it before its first chart; this bundle takes a sixth of that time. A figure with any
# other trace type is drawn by the full bundle (the `plotly` package's own), which assets/plotly_bundles.js
# fetches only then.
#
# Run it after upgrading the `plotly` Python package: the bundle must be the plotly.js release that package
# writes figures for (tests/dashboard/test_first_view.py checks). Needs node and npm; nothing at run time.
#   sh headdiv/dashboard/vendor/build-plotly-2d.sh [python]      # the python with `plotly` (default: .venv/bin/python)
set -eu
here=$(cd "$(dirname "$0")" && pwd)
python=${1:-$here/../../.venv/bin/python}
version=$("$python" -c 'from plotly.offline import get_plotlyjs_version as v; print(v())')
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
npm init -y >/dev/null
npm install --no-audit --no-fund --ignore-scripts --save-exact "plotly.js@$version" esbuild@0.28.2 >/dev/null
cat > entry.js <<'JS'
'use strict';
// plotly.js's core holds scatter; the bundle names the trace types it holds, so that the page can tell
// which figures need the full bundle.
var Plotly = require('plotly.js/lib/core');
Plotly.register([require('plotly.js/lib/bar'), require('plotly.js/lib/heatmap'), require('plotly.js/lib/histogram')]);
Plotly.bundledTraces = ['scatter', 'bar', 'heatmap', 'histogram'];
module.exports = Plotly;
JS
cat > build.js <<'JS'
// plotly.js's own esbuild settings (esbuild-config.js), less what only other trace types need.
const noMapCss = {  // the registry requires maplibre's CSS for map traces, which this bundle has none of
  name: 'no-map-css',
  setup(b) {
    b.onResolve({filter: /maplibre-gl\.css$/}, (a) => ({path: a.path, namespace: 'empty'}));
    b.onLoad({filter: /.*/, namespace: 'empty'}, () => ({contents: ''}));
  },
};
require('esbuild').build({
  entryPoints: ['entry.js'],
  outfile: 'plotly-2d.min.js',
  format: 'iife',
  globalName: 'Plotly',
  bundle: true,
  minify: true,
  plugins: [noMapCss],
  define: {global: 'window', 'define.amd': 'false'},
  target: 'es2016',
  banner: {js: `/* plotly.js v${process.argv[2]}, 2-D bundle (scatter, bar, heatmap, histogram): built by headdiv/dashboard/vendor/build-plotly-2d.sh. MIT license, Plotly, Inc.; the licenses of the bundled packages are at the end. */`},
}).catch(() => process.exit(1));
JS
node build.js "$version"
cp plotly-2d.min.js "$here/plotly-2d.min.js"
echo "wrote $here/plotly-2d.min.js (plotly.js $version, $(wc -c < plotly-2d.min.js) bytes)"
