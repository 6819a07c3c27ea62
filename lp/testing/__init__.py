"""`lp test`: LP's own test runner (docs/testing.md)."""
