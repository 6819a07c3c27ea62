"""`lp test`: LP's own test runner (docs/testing.md)."""

DEFAULT_TIMEOUT = 60   # seconds of real time a test may run (`lp test --timeout`)
