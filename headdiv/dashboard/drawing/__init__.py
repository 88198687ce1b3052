"""The page's computations, through the API, and the charts drawn from them once for every visitor.

- `vouched_client`: the dashboard's client of the API (`headdiv.client`), vouching for the browser.
- `view_jobs`: a view's API job: submit, poll with progress, cancel, keep the old figures meanwhile.
- `live`: charts that follow a moving slider, drawn once per page state and served to every browser.
- `shared_callbacks`: callbacks whose answer is a pure function of the request body, answered once for everyone.
- `figure_memory`: the app's one byte-bounded memory of drawn answers, shared by `live` and `shared_callbacks`.
- `upload_relay`: a model upload relayed to the API as it arrives, where the dashboard is served on its own.
- `warm`: what a newcomer's first clicks compute (every tab's default state, every preset), computed ahead.
- `export`: the result as CSV, and the commands that reproduce the current state.
"""
