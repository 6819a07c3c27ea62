"""Helpers for the comment tests: put comments between any tokens, and say where each comment sits.

A comment's place is how many code "events" come before it: the start of every
leaf node (names, literals, parameters) and the closing bracket of every
container (block, sequence, brace array, record, dispatch table, literal array).
`lp fmt` keeps comments in place when every comment keeps its count.
"""
from __future__ import annotations

from bisect import bisect

from lp.syntax import ast as A
from lp.syntax.parser import tokens

LEAVES = (A.Name, A.IntLit, A.FloatLit, A.StrLit, A.CharLit, A.SymLit, A.Param)
CONTAINERS = (A.Block, A.Sequence, A.BraceArray, A.Record, A.DispatchTable, A.LitArray)


def boundaries(src: str) -> list[int]:
    """Offsets where a comment may go: before each token, and at the end."""
    return [t.start_pos for t in tokens(src)] + [len(src.rstrip())]


def insert_comments(src: str, at: list[int], texts: list[str]) -> str:
    out, last = [], 0
    for pos, body in sorted(zip(at, texts)):
        out.append(src[last:pos])
        out.append(f' "{body}" ')
        last = pos
    out.append(src[last:])
    return "".join(out)


def placement(program: A.Program) -> list[int]:
    events = []
    for node in A.walk(program):
        if isinstance(node, LEAVES):
            events.append((node.span.line, node.span.col))
        elif isinstance(node, CONTAINERS):
            events.append((node.span.end_line, node.span.end_col - 1))
    events.sort()
    return [bisect(events, (c.span.line, c.span.col)) for c in program.comments]
