"""The page: its frame, its controls and its state, all in the URL.

- `app`: the Dash app: the page frame, the page-level callbacks and the views' callbacks.
- `frame`: the page frame: the header with its live numbers, the scenario sidebar, the tabs holding the views.
- `component_ids`: component ids shared between the page frame and the views.
- `components`: small layout helpers every view uses (charts, explanations, exports).
- `controls`: the scenario's controls, built from the registry.
- `play`: a ▶ button beside a slider steps it through its range.
- `sidebar_simulation`: the page's own simulation of the sidebar's scenario, whatever the tab.
- `url_state`: the one typed registry of every URL parameter of the dashboard.
- `language`: the language of the page a request serves (`?lang=`, the Referer's, the browser's), and `_`.
- `script_words`: the words the page's scripts show (the room's bar), written into each language's page.
- `notices`: what a link's bad values make the page say, a few of them, clipped, in its language.
- `param`: one URL parameter (`Param`): its kind, default and bounds, how it reads and writes, its control.
- `url_sync`: the URL <-> controls callback, the one place where the page's state is read and written.
- `callback_types`: what each component property may hold, so a forged callback request is refused.
- `callback_boundary`: whether a callback request is a call of one of the app's callbacks, as declared.
- `client_config`: what the page's clientside callbacks (`assets/clientside.js`) need from the server, built once.
- `vendored`: third-party scripts the dashboard serves itself (plotly.js in two bundles, the regenerator runtime).
"""
