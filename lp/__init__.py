"""LP: a statically typed, Smalltalk-flavoured actor language."""

__version__ = "0.1.0"
