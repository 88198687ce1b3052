"""Pure figure builders: a result dict in, a Plotly figure out (no Dash, no HTTP)."""
