"""The package version, in its own module so low layers can read it without cycles."""

__version__ = "0.1.0"
