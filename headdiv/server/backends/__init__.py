"""Where jobs run: in this process (`inline`, embedded mode) or on an RQ queue (`rq`, scaled mode), one protocol (`base`)."""
