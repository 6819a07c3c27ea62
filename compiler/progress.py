"""What `lp build` is doing, on stderr: with --verbose one line per phase and the seconds it took;
on a terminal otherwise one status line naming the current phase, erased when the build ends."""
from __future__ import annotations

import sys
import time


class Progress:
    def __init__(self, verbose: bool = False, stream=None):
        self.stream = stream or sys.stderr
        self.verbose = verbose
        self.live = not verbose and _is_terminal(self.stream)
        self.current: str | None = None
        self.started = 0.0

    def phase(self, name: str) -> None:
        """The build enters phase `name` (the previous one, if any, has ended)."""
        self._end()
        self.current, self.started = name, time.perf_counter()
        if self.live:
            self._write(f"\r\033[Klp build: {name}...")

    def message(self, text: str) -> None:
        """Write text to the stream (erasing the status line first; the next phase shows again)."""
        if self.live:
            self._write("\r\033[K")
        self._write(text)

    def __enter__(self) -> "Progress":
        return self

    def __exit__(self, *exc) -> None:
        self._end()
        if self.live:
            self._write("\r\033[K")

    def _end(self) -> None:
        if self.current is not None and self.verbose:
            self._write(f"lp build: {self.current} ({time.perf_counter() - self.started:.2f} s)\n")
        self.current = None

    def _write(self, text: str) -> None:
        self.stream.write(text)
        self.stream.flush()


def _is_terminal(stream) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False
