"""Pages that work without a server: a tour or a view's state as one self-contained HTML file (plotly.js
inlined, figures precomputed by the views' own figure builders, formulas rendered to MathML at export time),
for a lecture hall with no network, an LMS page or a laptop with no Python.

- `files`: what `headdiv export` writes and the page's download buttons serve: a tour, or one view's state.
- `snapshot`: a view's charts for one page state, computed to the end with the page's own requests and builders.
- `document`: one self-contained HTML document: plotly.js inlined, the content as JSON, drawn by `standalone.js`.
- `math_text`: Markdown with TeX formulas as HTML whose formulas are MathML, rendered once at export time.
- `download_routes`: the page's download routes (a whole tour, the view shown), each file built once and kept.
- `buttons`: the page's two links to those files, relative to the page so they work under any prefix.

Beside them, what each file inlines: standalone.js (draws the content) and standalone.css.
"""
