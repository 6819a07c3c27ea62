"""A small interpreter of a TextMate grammar's top-level patterns, enough to test editors/lp.tmLanguage.json.

Lines are matched one at a time as TextMate does. At each position the
pattern matching earliest wins, the first listed on a tie; a `begin`/`end`
rule stays open across lines, its `end` competing with its inner patterns
(the end wins a tie).
"""
from __future__ import annotations

import json
import re
from dataclasses import dataclass


@dataclass(frozen=True)
class Token:
    line: int       # 1-based
    col: int        # 1-based, first character
    end_col: int    # exclusive
    scope: str


def _compile(rules):
    out = []
    for r in rules:
        if "match" in r:
            out.append((re.compile(r["match"]), r["name"], None))
        else:
            inner = _compile(r.get("patterns", []))
            out.append((re.compile(r["begin"]), r["name"], (re.compile(r["end"]), inner)))
    return out


def _earliest(rules, line, pos):
    best = None
    for rx, name, block in rules:
        m = rx.search(line, pos)
        if m and m.end() > m.start() and (best is None or m.start() < best[0].start()):
            best = (m, name, block)
    return best


def tokenize(grammar_path, text: str) -> list[Token]:
    rules = _compile(json.loads(open(grammar_path, encoding="utf-8").read())["patterns"])
    tokens: list[Token] = []
    open_rule = None          # (scope name, end regex, inner rules, start line, start col)
    for n, line in enumerate(text.split("\n"), start=1):
        pos = 0
        while pos <= len(line):
            if open_rule is not None:
                name, end_rx, inner, l0, c0 = open_rule
                end = end_rx.search(line, pos)
                sub = _earliest(inner, line, pos)
                if sub is not None and (end is None or sub[0].start() < end.start()):
                    tokens.append(Token(n, sub[0].start() + 1, sub[0].end() + 1, sub[1]))
                    pos = sub[0].end()
                    continue
                stop = end.end() if end else len(line)
                tokens.append(Token(n, (c0 if l0 == n else 0) + 1, stop + 1, name))
                if end is None:
                    open_rule = (name, end_rx, inner, l0, c0)
                    break
                open_rule = None
                pos = stop
                continue
            found = _earliest(rules, line, pos)
            if found is None:
                break
            m, name, block = found
            if block is None:
                tokens.append(Token(n, m.start() + 1, m.end() + 1, name))
                pos = m.end()
            else:
                open_rule = (name, block[0], block[1], n, m.start())
                pos = m.end()
    return tokens


def scope_at(tokens: list[Token], line: int, col: int) -> str | None:
    for t in tokens:
        if t.line == line and t.col <= col < t.end_col:
            return t.scope
    return None
