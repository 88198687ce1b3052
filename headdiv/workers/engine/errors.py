"""Exceptions the engine raises on purpose (anything else is a bug)."""


class EngineError(Exception):
    """A computation that cannot be done as asked; the message is meant for the user."""


class JobCancelled(Exception):
    """Raised between steps of a long computation once its caller asked to stop."""
