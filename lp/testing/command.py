"""`lp test [PATH...]`: finds the tests, runs each (deterministically by default: one seed, or
`--seeds K` of them), prints a dot per passing run and a report per failure, then the counts.
Exit status 0 when every test passed, 1 otherwise (or when a file does not load)."""
from __future__ import annotations

import shlex
import sys

from lp.testing import DEFAULT_TIMEOUT
from lp.diagnostics import LPError, SourceMap, render_all
from lp.testing.discover import test_files, test_methods
from lp.testing.runner import keep_test_frames, run_test, shrink

DEFAULT_SEED = 1
NO_TESTS_HINT = "a test is a unary method named test... of a subclass of TestCase"


def cmd_test(args, sources: SourceMap) -> int:
    from lp.cli import _load_program, _type_check
    from lp.interp.interp import Interpreter
    if args.real and (fault_limit(args) is not None or args.seed is not None or args.seeds):
        sys.stderr.write("lp test: --real runs on the normal scheduler: --seed, --seeds and the fault flags "
                         "need deterministic mode\n")
        return 2
    files, missing = test_files(args.paths)
    out = sys.stdout
    for m in missing:
        sys.stderr.write(f"lp test: {m}: no such file or folder\n")
    if missing:
        return 1
    if not files:
        sys.stderr.write("lp test: no *_test.lp files found\n")
        return 1
    seeds = _seeds(args)
    passed, failed, broken = 0, [], 0
    for path in files:
        try:
            main, imports = _load_program(path, sources)
            checked = _type_check(main, imports, sources, quiet=True)
            tests = test_methods(main, imports)
            interp = Interpreter(sources)
            interp.load(imports + [main], checked.grain_shapes)
            keep_test_frames(interp, main, tests)
        except LPError as e:
            if all(d.title == "empty file" for d in e.diagnostics):
                out.write(f"{path}: no tests (the file is empty)\n")
                continue
            out.flush()
            sys.stderr.write(render_all(e.diagnostics, sources) + "\n")
            broken += 1
            continue
        if args.only:
            tests = [t for t in tests if t.name in args.only or t.selector in args.only]
        if not tests:
            out.write(f"{path}: no tests" + ("" if args.only else f" ({NO_TESTS_HINT})") + "\n")
            continue
        out.write(path + " ")
        for t in tests:
            outcome = None
            for seed in seeds:
                outcome = run_test(interp, t, seed=seed, faults=fault_limit(args) if seed is not None else None,
                                   fault_rate=args.fault_rate or 1, time_limit=args.timeout or None)
                if not outcome.passed:
                    if outcome.faults == 0 and not args.fault_rate and outcome.injected and not outcome.out_of_time:
                        outcome = shrink(interp, outcome, args.timeout or None)
                    break
            out.write("." if outcome.passed else "F")
            out.flush()
            if outcome.passed:
                passed += 1
            else:
                failed.append((path, outcome))
        out.write("\n")
    for path, o in failed:
        out.write(_failure(path, o, args))
    counts = [f"{passed} passed", f"{len(failed)} failed"]
    if broken:
        counts.append(f"{broken} file{'s' if broken > 1 else ''} did not load")
    total = passed + len(failed)
    out.write(f"{total} test{'' if total == 1 else 's'}: {', '.join(counts)}\n")
    if total == 0 and not broken:
        sys.stderr.write("lp test: no test ran" + (f": --only {' '.join(args.only)} matched no test" if args.only
                                                    else f" ({NO_TESTS_HINT})") + "\n")
        return 1
    return 1 if failed or broken else 0


def fault_limit(args):
    """None: no faults; else the most to inject (0: no limit)."""
    if args.max_faults is not None:
        return args.max_faults
    return 0 if args.faults or args.fault_rate else None


def _seeds(args):
    if args.real:
        return [None]
    if args.seeds:
        first = args.seed if args.seed is not None else DEFAULT_SEED
        return range(first, first + args.seeds)
    return [args.seed if args.seed is not None else DEFAULT_SEED]


def _failure(path, o, args) -> str:
    lines = [f"\nFAIL {o.test.name}" + (f" (seed {o.seed})" if o.seed is not None else "")]
    lines += ["  " + x for x in o.lines]
    if o.output:
        lines.append("  output:")
        lines += ["    " + x for x in o.output.rstrip("\n").split("\n")]
    if o.faults is not None:
        lines.append(f"  faults injected: {o.injected} in {o.steps} turns" +
                     (f" (shrunk from {o.shrunk_from[0]} in {o.shrunk_from[1]} turns)" if o.shrunk_from else ""))
    if o.seed is not None:
        cmd = ["lp", "test", path, "--seed", str(o.seed), "--only", o.test.name]
        if args.timeout != DEFAULT_TIMEOUT:
            cmd += ["--timeout", str(args.timeout)]
        if o.faults is not None:
            cmd += ["--max-faults", str(o.faults)] if o.faults else ["--faults"]
            cmd += ["--fault-rate", str(o.fault_rate)] if o.fault_rate > 1 else []
        lines.append("  reproduce: " + shlex.join(cmd))
    return "\n".join(lines) + "\n"
