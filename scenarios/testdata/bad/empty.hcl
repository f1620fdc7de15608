# An empty scenario: every required block is reported missing.
