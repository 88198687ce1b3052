"""Pages that work without a server: a tour or a view's state as one self-contained HTML file (plotly.js
inlined, figures precomputed by the views' own figure builders, formulas rendered to MathML at export time),
for a lecture hall with no network, an LMS page or a laptop with no Python."""
