"""The expression engine."""
