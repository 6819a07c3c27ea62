"""The `lp` command: run, check, build, ir, fmt, test, lsp.

Exit status: 0 success, 1 a diagnostic about the user's program or input,
2 a usage error. User mistakes never show a Python traceback.
"""
from __future__ import annotations

import argparse
import os
import sys

from lp import __version__
from lp.diagnostics import LPError, SourceMap, render_all
from lp.testing import DEFAULT_TIMEOUT

EXIT_OK, EXIT_DIAGNOSTIC, EXIT_USAGE = 0, 1, 2


class _Parser(argparse.ArgumentParser):
    def error(self, message):
        self.print_usage(sys.stderr)
        sys.stderr.write(f"lp: {message}\n")
        sys.exit(EXIT_USAGE)


def _whole(text: str, most: int, least: int = 1) -> int:
    try:
        n = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, not {text!r}") from None
    if not least <= n <= most:
        raise argparse.ArgumentTypeError(f"must be from {least} to {most:,}, "
                                         f"not {text if len(text) < 30 else text[:27] + '...'}")
    return n


MAX_DOMAINS = 1024          # one thread each
MAX_STACK_LIMIT = 10 ** 9   # frames; memory runs out long before


def _domains(text: str) -> int:
    return _whole(text, MAX_DOMAINS)


def _stack_limit(text: str) -> int:
    return _whole(text, MAX_STACK_LIMIT)


MAX_SEED = 2 ** 63 - 1


def _seed(text: str) -> int:
    return _whole(text, MAX_SEED, least=0)


def _seed_count(text: str) -> int:
    return _whole(text, 10 ** 9)


def _observe_address(text: str) -> tuple[str, int]:
    """[HOST:]PORT; the host is 127.0.0.1 unless given."""
    host, _, port = text.rpartition(":")
    if not port.isdigit() or int(port) > 65535:
        raise argparse.ArgumentTypeError(f"expected [HOST:]PORT (a port from 0 to 65535), not {text!r}")
    return host or "127.0.0.1", int(port)


def _timeout(text: str) -> int:
    return _whole(text, 10 ** 6, least=0)


MAX_FAULT_RATE = 256   # runtime/det.c


def _fault_rate(text: str) -> int:
    return _whole(text, MAX_FAULT_RATE)


def _fault_flags(p) -> None:
    """--faults, --max-faults, --fault-rate: the faults of deterministic mode (docs/testing.md)."""
    p.add_argument("--faults", action="store_true",
                   help="inject seeded faults: kill actors, delay deliveries, slow turns, fire timers late")
    p.add_argument("--max-faults", type=_seed_count, default=None, metavar="N",
                   help="inject at most N faults (implies --faults; a shrunk failure prints it)")
    p.add_argument("--fault-rate", type=_fault_rate, default=None, metavar="R",
                   help="make each fault R times as likely (implies --faults; a shrunk failure prints it)")


def _parser() -> argparse.ArgumentParser:
    p = _Parser(prog="lp", description="LP: a statically typed, Smalltalk-flavoured actor language.")
    p.add_argument("--version", action="version", version=f"lp {__version__}")
    sub = p.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)

    run = sub.add_parser("run", help="type-check and run a program", description="Type-check FILE, then run it.")
    run.add_argument("file", metavar="FILE")
    run.add_argument("--domains", type=_domains, default=None, metavar="N", help="scheduler domains (default: cores)")
    run.add_argument("--quiet", action="store_true", help="silence reports of unobserved deaths and unmatched messages")
    run.add_argument("--seed", type=_seed, default=None, metavar="N",
                     help="run in deterministic mode with this seed: one domain, virtual time (docs/testing.md)")
    _fault_flags(run)
    run.add_argument("--no-check", action="store_true", help="skip the type check")
    run.add_argument("--observe", type=_observe_address, default=None, metavar="[HOST:]PORT",
                     help="serve a live view of the running program at http://HOST:PORT/ "
                          "(HOST 127.0.0.1 unless given; docs/observer.md)")
    run.add_argument("--stack-limit", type=_stack_limit, default=200_000, metavar="N",
                     help="nested calls allowed before a stack overflow error (default 200000)")

    check = sub.add_parser("check", help="type-check a program", description="Parse and type-check FILE.")
    check.add_argument("file", metavar="FILE")

    build = sub.add_parser("build", help="compile a program to a native binary",
                           description="Type-check FILE and compile it with LLVM into a native executable "
                                       "(see docs/native.md).")
    build.add_argument("file", metavar="FILE")
    build.add_argument("-o", dest="output", metavar="OUT", default=None,
                       help="the executable to write (default: FILE without .lp)")
    for level in range(4):
        build.add_argument(f"-O{level}", dest="opt", action="store_const", const=level,
                           help="optimisation level: -O0, -O1, -O2 (the default) or -O3" if level == 2 else argparse.SUPPRESS)
    build.add_argument("--emit-llvm", action="store_true", help="also write the LLVM IR beside OUT (OUT.ll)")
    build.add_argument("--keep-temps", action="store_true", help="keep the object file and build directory")
    build.add_argument("--observable", action="store_true",
                       help="compile the observer in: the binary takes --observe [HOST:]PORT (docs/observer.md)")
    build.add_argument("-v", "--verbose", action="store_true",
                       help="print each phase of the build and the seconds it took on stderr")

    ir = sub.add_parser("ir", help="print a program's typed IR",
                        description="Type-check FILE and print its typed IR (lp/ir), the back ends' input.")
    ir.add_argument("file", metavar="FILE")
    ir.add_argument("--all", action="store_true", help="include the core library's methods")

    fmt = sub.add_parser("fmt", help="print a program in canonical form",
                         description="Print the canonical formatting of each FILE to standard output.")
    fmt.add_argument("files", metavar="FILE", nargs="+")
    mode = fmt.add_mutually_exclusive_group()
    mode.add_argument("--write", action="store_true", help="rewrite the files in place")
    mode.add_argument("--check", action="store_true", help="exit 1 if any file would change")

    test = sub.add_parser("test", help="run the tests in *_test.lp files",
                          description="Run the test methods of the TestCase subclasses in each *_test.lp file "
                                      "(a folder is searched; default: tests/ or .), deterministically "
                                      "(see docs/testing.md).")
    test.add_argument("paths", metavar="PATH", nargs="*")
    test.add_argument("--seed", type=_seed, default=None, metavar="N",
                      help="the seed of the deterministic schedule (default 1)")
    test.add_argument("--seeds", type=_seed_count, default=None, metavar="K",
                      help="run each test under K seeds (from --seed on), stopping at its first failure")
    _fault_flags(test)
    test.add_argument("--timeout", type=_timeout, default=DEFAULT_TIMEOUT, metavar="SECONDS",
                      help=f"fail a test still running after this many seconds of real time "
                           f"(default {DEFAULT_TIMEOUT}; 0: no limit)")
    test.add_argument("--real", action="store_true",
                      help="run on the normal multi-domain scheduler and clock instead")
    test.add_argument("--only", action="append", metavar="TEST",
                      help="run only this test (Class>>test or test; may be repeated)")

    lsp = sub.add_parser("lsp", help="run the language server on standard input and output",
                         description="Run LP's Language Server Protocol server over stdio (see docs/editors.md).")
    lsp.add_argument("--stdio", action="store_true", help="accepted for editors that pass it; stdio is the default")
    return p


def _report(err: LPError, sources: SourceMap) -> int:
    sys.stderr.write(render_all(err.diagnostics, sources))
    return EXIT_DIAGNOSTIC


def _load(path: str, sources: SourceMap):
    from lp.syntax.parser import parse_text, read_source
    text = read_source(path)
    sources.add(path, text)
    return parse_text(text, path)


def _load_program(path: str, sources: SourceMap, extra_modules: tuple[str, ...] = ()):
    """The main module and its imports (the core library first), parsed once each, with the
    stdlib modules `extra_modules` as if it imported them."""
    from lp.modules import Loader
    return Loader(sources).load_main(path, extra_modules)


def _type_check(main, imports, sources: SourceMap, quiet: bool = False):
    """Errors stop the program; warnings are printed (unless quiet) and do not. Answers the CheckResult."""
    from lp.types import check_program
    result = check_program(main, imports)
    if any(d.severity == "error" for d in result.diagnostics):
        raise LPError(*result.diagnostics)
    if result.diagnostics and not quiet:
        sys.stderr.write(render_all(result.diagnostics, sources) + "\n")
    return result


def cmd_ir(args, sources: SourceMap) -> int:
    from lp.ir import build_program, format_program
    main, imports = _load_program(args.file, sources)
    result = _type_check(main, imports, sources, quiet=True)
    sys.stdout.write(format_program(build_program(main, imports, result), user_only=not args.all))
    return EXIT_OK


def cmd_build(args, sources: SourceMap) -> int:
    from lp.compiler.driver import build
    from lp.compiler.progress import Progress
    with Progress(args.verbose) as progress:
        progress.phase("checking")
        main, imports = _load_program(args.file, sources, ("Observer",) if args.observable else ())
        if args.observable:
            import dataclasses
            from lp.observe.start import prelude
            main = dataclasses.replace(main, items=(*prelude(sources), *main.items))
        result = _type_check(main, imports, sources, quiet=True)
        if result.diagnostics:
            progress.message(render_all(result.diagnostics, sources) + "\n")
        return build(main, imports, result, sources, args, progress)


def cmd_check(args, sources: SourceMap) -> int:
    main, imports = _load_program(args.file, sources)
    _type_check(main, imports, sources)
    print(f"{args.file}: no errors found")
    return EXIT_OK


def cmd_run(args, sources: SourceMap) -> int:
    from lp.interp.interp import Interpreter
    if args.observe is not None and args.seed is not None:
        sys.stderr.write("lp: --observe serves the page over the network, which deterministic mode (--seed) "
                         "does not allow\n")
        return EXIT_USAGE
    from lp.testing.command import fault_limit
    faults = fault_limit(args)
    if faults is not None and args.seed is None:
        _Parser(prog="lp run").error("--faults, --max-faults and --fault-rate need --seed N")
    from lp.modules import Loader
    loader = Loader(sources)
    main, imports = loader.load_main(args.file)
    checked = None if args.no_check else _type_check(main, imports, sources, quiet=args.quiet)
    if args.observe is not None:
        # the Observer's modules are checked on their own (tests/library); the program is checked
        # as without the flag, and the interpreter still refuses a class declared twice
        imports += loader.load_stdlib(("Observer",))
    interp = Interpreter(sources, quiet=args.quiet, stack_limit=args.stack_limit)
    if checked is not None and os.environ.get("LP_TYPE_ORACLE"):
        from lp.interp import type_oracle
        type_oracle.install(interp, checked.types, checked.discarded)
    interp.load(imports + [main], checked.grain_shapes if checked is not None else None)
    prelude = []
    if args.observe is not None:
        from lp.observe.start import observe
        prelude = observe(interp, sources, *args.observe)
        if prelude is None:
            return EXIT_USAGE
    return interp.run_main(main, args.domains, seed=args.seed, faults=faults, fault_rate=args.fault_rate or 1,
                           prelude=prelude)


def cmd_fmt(args, sources: SourceMap) -> int:
    from lp.syntax.format import format_program
    status = EXIT_OK
    for path in args.files:
        try:
            program = _load(path, sources)
        except LPError as e:
            status = _report(e, sources)
            continue
        out = format_program(program)
        if args.check:
            if out != sources.texts[path]:
                sys.stderr.write(f"{path}: would be reformatted\n")
                status = max(status, EXIT_DIAGNOSTIC)
        elif args.write:
            if out != sources.texts[path]:
                with open(path, "w", encoding="utf-8") as f:
                    f.write(out)
        else:
            sys.stdout.write(out)
    return status


def cmd_test(args, sources: SourceMap) -> int:
    from lp.testing.command import cmd_test as run
    return run(args, sources)


def cmd_lsp(args, sources: SourceMap) -> int:
    from lp.lsp.server import main as serve
    return serve()


COMMANDS = {"run": cmd_run, "check": cmd_check, "build": cmd_build, "ir": cmd_ir, "fmt": cmd_fmt, "lsp": cmd_lsp,
            "test": cmd_test}


def main(argv: list[str] | None = None) -> int:
    sys.setrecursionlimit(max(sys.getrecursionlimit(), 20000))
    args = _parser().parse_args(argv)
    if args.command is None:
        _parser().print_help(sys.stderr)
        return EXIT_USAGE
    sources = SourceMap()
    try:
        return COMMANDS[args.command](args, sources)
    except LPError as e:
        return _report(e, sources)
    except KeyboardInterrupt:
        sys.stderr.write("lp: interrupted\n")
        return 130
    except BrokenPipeError:
        return EXIT_OK
    except RecursionError:
        sys.stderr.write("lp: internal error: the program is nested too deeply for this phase\n")
        return 3
    except Exception as e:  # a bug in lp itself, not the user's mistake
        if os.environ.get("LP_DEBUG"):
            raise
        sys.stderr.write(f"lp: internal error: {type(e).__name__}: {e}\n"
                         "This is a bug in lp. Set LP_DEBUG=1 to see the Python traceback.\n")
        return 3


if __name__ == "__main__":
    sys.exit(main())
