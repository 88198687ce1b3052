"""Component ids shared between the page frame and the views (kept apart so any module may import them)."""

STATE_STORE = "state"
"""Id of the `dcc.Store` holding the validated state (a dict of every URL parameter's value)."""
SIM_RESULT_STORE = "sim-result"
"""Id of the store holding `{"key": ..., "result": <simulation result>}` for the current scenario,
run by the app for every tab (the header shows its headline numbers); views may read it."""
SIM_STATE = "sim-state"
"""Id of the store holding the scenario's values, written by the sync callback only when a scenario key
changes: the page's simulation listens to it, so moving a view's own control costs that simulation no
request."""


def view_state(view_id: str) -> str:
    """Id of the store holding the page state while tab `view_id` is shown, updated in the browser only
    then (and only when the state changed): a view's callbacks listen to it, so a key press costs no
    request for the tabs that are not on screen."""
    return f"{view_id}-state"


def view_sim(view_id: str) -> str:
    """Id of the store relaying `SIM_RESULT_STORE` to view `view_id` while its tab is shown (same reason)."""
    return f"{view_id}-sim"
