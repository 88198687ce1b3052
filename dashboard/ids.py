"""Component ids shared between the page frame and the views (kept apart so any module may import them)."""

STATE_STORE = "state"
"""Id of the `dcc.Store` holding the validated state (a dict of every URL parameter's value)."""
SIM_RESULT_STORE = "sim-result"
"""Id of the store holding `{"key": ..., "result": <simulation result>}` for the current scenario,
run by the app for every tab (the header shows its headline numbers); views may read it."""
TAB_PARAM = "tab"
"""URL parameter naming the active view (its `View.id`)."""
