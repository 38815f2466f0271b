"""Persistent fused softmax (the form of Triton's tutorial 02): tilec beside Triton and torch.

Each program walks rows ``pid, pid + programs, ...`` in ``tl.range(..., num_stages=S)``; the
host sizes the grid from the compiled kernel's ``n_regs`` and ``metadata.shared`` (warmup +
``_init_handles``) and the device's registers, shared memory and SM count, then launches the
compiled kernel directly. This file is loaded twice, as Triton kernels and with ``USE_TILEC``
set as tilec kernels, so both compilers see the same source. Every result is checked against
torch.softmax (float64) before timing; times are ``triton.testing.do_bench`` medians over the
tutorial's sweep (M=4096, N=256..12672 in steps of 128). Prints GB/s (2·M·N·4 bytes per call),
the ratios, each compiler's occupancy figures, and writes JSON to bench/results/.

    PYTHONPATH=src python3 bench/softmax_persistent.py [--quick] [--stages S] [--out DIR]

Without a GPU, ``--registers`` prints tilec's register counts for sm_90a over the quick sweep,
as ptxas assembles the kernel whole (the command line, as Triton runs it) and relocatable
(``-c``: what nvJitLink does, and so what the driver reports after a launch through it).
"""

from __future__ import annotations

if globals().get("USE_TILEC"):
    import tilec as triton
    import tilec.language as tl
    from tilec.runtime import driver
else:
    try:
        import triton
        import triton.language as tl
        from triton.runtime import driver
    except ImportError:  # the tilec half still runs
        triton = tl = driver = None  # type: ignore[assignment]


if triton is not None:

    @triton.jit
    def softmax_kernel(out_ptr, in_ptr, in_stride, out_stride, n_rows, n_cols,
                       BLOCK_SIZE: tl.constexpr, num_stages: tl.constexpr):
        first = tl.program_id(0)
        step = tl.num_programs(0)
        for row in tl.range(first, n_rows, step, num_stages=num_stages):
            cols = tl.arange(0, BLOCK_SIZE)
            inside = cols < n_cols
            x = tl.load(in_ptr + row * in_stride + cols, mask=inside, other=-float("inf"))
            shifted = x - tl.max(x, axis=0)
            num = tl.exp(shifted)
            tl.store(out_ptr + row * out_stride + cols, num / tl.sum(num, axis=0), mask=inside)


class PersistentSoftmax:
    """The host side: grid = SMs × blocks per SM (from registers and shared memory)."""

    def __init__(self, mod, device: int, num_warps: int, num_stages: int | None) -> None:  # type: ignore[no-untyped-def]
        props = mod.driver.active.utils.get_device_properties(device)
        self.mod, self.num_warps = mod, num_warps
        self.sms, self.regs = props["multiprocessor_count"], props["max_num_regs"]
        self.smem, self.warp = props["max_shared_mem"], props["warpSize"]
        self.stages = num_stages if num_stages is not None else (4 if self.smem > 200_000 else 2)
        self.kernels: dict[tuple[int, int], tuple[object, int, int, int]] = {}

    def compiled(self, x, y):  # type: ignore[no-untyped-def]
        n_rows, n_cols = x.shape
        block = self.mod.triton.next_power_of_2(n_cols)
        key = (block, n_rows)
        if key not in self.kernels:
            k = self.mod.softmax_kernel.warmup(
                y, x, x.stride(0), y.stride(0), n_rows, n_cols, BLOCK_SIZE=block,
                num_stages=self.stages, num_warps=self.num_warps, grid=(1,),
            )
            k._init_handles()
            n_regs, shared = k.n_regs, k.metadata.shared
            per_sm = self.regs // max(n_regs * self.warp * self.num_warps, 1)
            if shared:
                per_sm = min(per_sm, self.smem // shared)
            programs = min(max(self.sms * per_sm, 1), n_rows)
            self.kernels[key] = (k, programs, n_regs, shared)
        return self.kernels[key]

    def __call__(self, x):  # type: ignore[no-untyped-def]
        y = x.new_empty(x.shape)
        k, programs, _, _ = self.compiled(x, y)
        n_rows, n_cols = x.shape
        block = self.mod.triton.next_power_of_2(n_cols)
        k[(programs, 1, 1)](y, x, x.stride(0), y.stride(0), n_rows, n_cols, block, self.stages)
        return y


def _load(use_tilec: bool):  # type: ignore[no-untyped-def]
    import importlib.util
    import sys

    name = "bench_softmax_persistent_" + ("tilec" if use_tilec else "triton")
    spec = importlib.util.spec_from_file_location(name, __file__)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    module.USE_TILEC = use_tilec  # type: ignore[attr-defined]
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module if module.triton is not None else None


def registers(stages: int, warps: int, sweep: list[int]) -> None:
    """Offline: tilec's registers per thread for each N of ``sweep`` (needs ptxas)."""
    import re
    import subprocess
    import tempfile
    from pathlib import Path

    from tilec import config
    from tilec.backends.cuda import toolchain

    module = _load(True)
    ptxas = toolchain.ptxas_path()
    if module is None or ptxas is None:
        raise SystemExit("--registers needs tilec and ptxas")
    print("     N  BLOCK  whole  relocatable")
    for n in sweep:
        block = module.triton.next_power_of_2(n)
        sig = f"*fp32:16, *fp32:16, i32:16, i32:16, i32:16, i32:16, BLOCK_SIZE={block}, num_stages={stages}"
        with config.override(cache_enabled=False):
            k = module.triton.compile(
                module.softmax_kernel, sig, target="cuda:sm_90a", num_warps=warps, num_stages=stages
            )
        figures = []
        with tempfile.TemporaryDirectory() as tmp:
            src = Path(tmp) / "k.ptx"
            src.write_text(str(k.asm["ptx"]))
            for flags in ([], ["-c"]):
                cmd = [ptxas, "-arch=sm_90a", "-O3", "-v", *flags, str(src), "-o", f"{tmp}/k.o"]
                log = subprocess.run(cmd, capture_output=True, text=True, check=True).stderr
                found = re.search(r"Used (\d+) registers", log)
                figures.append(found.group(1) if found else "?")
        print(f"{n:6d}  {block:5d}  {figures[0]:>5}  {figures[1]:>11}")


def main() -> None:
    import argparse
    import json
    import platform
    import time
    from pathlib import Path

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="a few points of the sweep")
    ap.add_argument("--stages", type=int, default=None, help="num_stages (tutorial: 4 or 2)")
    ap.add_argument("--warps", type=int, default=8)
    ap.add_argument("--rows", type=int, default=4096)
    ap.add_argument("--out", default=str(Path(__file__).resolve().parent / "results"))
    ap.add_argument("--registers", action="store_true", help="offline register counts (ptxas)")
    opts = ap.parse_args()
    quick = [256, 1024, 2048, 4096, 6016, 9088, 12160]
    if opts.registers:
        registers(opts.stages if opts.stages is not None else 4, opts.warps, quick)
        return
    import torch

    device = torch.cuda.current_device()
    impls = {"tilec": _load(True), "triton": _load(False)}
    impls = {k: v for k, v in impls.items() if v is not None}
    softmax = {k: PersistentSoftmax(m, device, opts.warps, opts.stages) for k, m in impls.items()}
    bench = (impls.get("triton") or impls["tilec"]).triton.testing.do_bench
    sweep = [128 * i for i in range(2, 100)]
    if opts.quick:
        sweep = quick
    rows = []
    for n in sweep:
        x = torch.randn(opts.rows, n, device="cuda", dtype=torch.float32)
        ref = torch.softmax(x.double(), dim=1)
        gbs, figures = {}, {}
        for name, fn in softmax.items():
            y = fn(x)
            torch.cuda.synchronize()
            err = float((y.double() - ref).abs().max())
            if not err < 1e-5:
                raise SystemExit(f"{name} wrong at N={n}: max abs error {err}")
            ms = bench(lambda fn=fn, x=x: fn(x))
            gbs[name] = 2 * x.numel() * x.element_size() * 1e-9 / (ms * 1e-3)
            _, programs, n_regs, shared = fn.compiled(x, x)
            figures[name] = {"programs": programs, "n_regs": n_regs, "shared": shared}
        ms = bench(lambda x=x: torch.softmax(x, dim=-1))
        gbs["torch"] = 2 * x.numel() * x.element_size() * 1e-9 / (ms * 1e-3)
        rows.append({"N": n, "GB/s": gbs, "figures": figures})
        line = "  ".join(f"{k} {v:7.0f}" for k, v in gbs.items())
        ratio = gbs["tilec"] / gbs["triton"] if "triton" in gbs else float("nan")
        print(f"N={n:6d}  {line}  tilec/triton {ratio:5.2f}  {figures}", flush=True)

    print("\n     N   tilec GB/s  triton GB/s  torch GB/s  tilec/triton  tilec/torch")
    for r in rows:
        g = r["GB/s"]
        tr = g.get("triton", float("nan"))
        print(f"{r['N']:6d}  {g['tilec']:10.0f}  {tr:11.0f}  {g['torch']:10.0f}"
              f"  {g['tilec'] / tr:12.2f}  {g['tilec'] / g['torch']:11.2f}")
    out = Path(opts.out)
    out.mkdir(parents=True, exist_ok=True)
    stamp = time.strftime("%Y%m%dT%H%M%S")
    meta = {
        "gpu": torch.cuda.get_device_name(device),
        "torch": torch.__version__,
        "triton": getattr(impls.get("triton"), "triton", None) and impls["triton"].triton.__version__,
        "python": platform.python_version(),
        "rows": opts.rows, "warps": opts.warps, "stages": softmax["tilec"].stages,
    }  # fmt: skip
    path = out / f"softmax-persistent-{stamp}.json"
    path.write_text(json.dumps({"meta": meta, "rows": rows}, indent=1))
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
