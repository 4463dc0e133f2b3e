"""Watches: questions researched again on a schedule, with what changed since last time."""
