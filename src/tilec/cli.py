"""The ``tilec`` command line: ``doctor``, ``compile``, ``cache`` and ``--version``.

Argument parsing lives here; each subcommand's work lives with the concept it belongs to and is
imported only when that subcommand runs. Exit codes come from the error class (UsageError → 2);
a CompileError, a mistake in the user's kernel, is a usage error of the command line too (2).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from ._version import __version__
from .errors import CompileError, TilecError


def _doctor(ns: argparse.Namespace) -> int:
    from .platform import doctor

    return doctor.main(verbose=ns.verbose, as_json=ns.json, facts=ns.facts, run=ns.run)


def _compile(ns: argparse.Namespace) -> int:
    from . import compile_cli

    return compile_cli.main(ns)


def _cache(ns: argparse.Namespace) -> int:
    from .runtime import cache

    return cache.main(ns.action, as_json=ns.json)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="tilec",
        description="tilec: a Triton-compatible tile compiler for NVIDIA GPUs and any CPU.",
    )
    parser.add_argument("--version", action="version", version=f"tilec {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    doctor = sub.add_parser("doctor", help="check this machine and explain what works")
    doctor.add_argument("-v", "--verbose", action="store_true", help="show every fact")
    doctor.add_argument("--json", action="store_true", help="emit the versioned JSON report")
    doctor.add_argument("--facts", metavar="FILE", help="replay a saved `--json` report")
    doctor.add_argument(
        "--run", action="store_true", help="compile and run a tiny kernel on each backend"
    )
    doctor.set_defaults(func=_doctor)

    comp = sub.add_parser("compile", help="compile a kernel without running it")
    comp.add_argument("kernel", help="PATH.py:NAME or module:NAME of a @tilec.jit function")
    comp.add_argument(
        "-s",
        "--signature",
        required=True,
        help='argument types, e.g. "*fp32, *fp32, i32, BLOCK=1024" (constexprs as NAME=VALUE)',
    )
    comp.add_argument(
        "--stage",
        default="tir",
        help="what to emit: tir, llir, asm (CPU assembly), ptx, cubin (default: tir)",
    )
    comp.add_argument("--target", default="cpu", help="cpu, or cuda:sm_90a / cuda:sm_80 ...")
    comp.add_argument("--num-warps", type=int, default=4)
    comp.add_argument("-o", "--output", help="write to this file instead of stdout")
    comp.set_defaults(func=_compile)

    cache = sub.add_parser("cache", help="inspect or clear the kernel cache")
    cache.add_argument("action", choices=["info", "list", "clear"])
    cache.add_argument("--json", action="store_true")
    cache.set_defaults(func=_cache)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    try:
        ns = parser.parse_args(argv)
    except SystemExit as exc:  # argparse exits 2 on usage errors, 0 for --help/--version
        return int(exc.code or 0)
    if ns.command is None:
        parser.print_usage(sys.stderr)
        print("tilec: error: a command is required (doctor, compile, cache)", file=sys.stderr)
        return 2
    try:
        return int(ns.func(ns))
    except CompileError as exc:  # a mistake in the user's kernel: a usage error of the CLI
        print(f"tilec: error: {exc}", file=sys.stderr)
        return 2
    except TilecError as exc:
        print(f"tilec: error: {exc}", file=sys.stderr)
        return exc.exit_code
    except OSError as exc:  # e.g. an -o path in a folder that does not exist
        print(f"tilec: error: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())
