"""Loops whose loads the CUDA backend pipelines (``tl.range(num_stages=S)``), shared by the
offline PTX tests and the GPU tests, plus float64 references for the GPU tests."""

from __future__ import annotations

import numpy as np

import tilec
import tilec.language as tl


@tilec.jit
def column_sums(x, out, n_rows, n_cols, stride, OTHER: tl.constexpr, BLOCK: tl.constexpr,
                STAGES: tl.constexpr):
    """out[j] = sum over rows of x[r, j], or OTHER per row for j >= n_cols (every lane stored,
    so a masked lane that read anything but ``other`` shows)."""
    cols = tl.arange(0, BLOCK)
    acc = tl.zeros([BLOCK], tl.float32)
    for r in tl.range(0, n_rows, num_stages=STAGES):
        acc += tl.load(x + r * stride + cols, mask=cols < n_cols, other=OTHER)
    tl.store(out + cols, acc)


def column_sums_ref(x: np.ndarray, n_cols: int, other: float, block: int) -> np.ndarray:
    rows = x.shape[0]
    out = np.full(block, other * rows, np.float64)
    out[:n_cols] = x[:, :n_cols].astype(np.float64).sum(axis=0)
    return out


@tilec.jit
def weighted_blocks(x, out, n, OTHER: tl.constexpr, BLOCK: tl.constexpr, STAGES: tl.constexpr):
    """out[j] = sum_k (k + 1) * x[k*BLOCK + j] over the blocks of a length-n vector, masked tail
    read as OTHER: the mask depends on the induction variable, the accumulator is carried."""
    offs = tl.arange(0, BLOCK)
    acc = tl.zeros([BLOCK], tl.float32)
    for start in tl.range(0, n, BLOCK, num_stages=STAGES):
        v = tl.load(x + start + offs, mask=start + offs < n, other=OTHER)
        acc += v * (start // BLOCK + 1).to(tl.float32)
    tl.store(out + offs, acc)


def weighted_blocks_ref(x: np.ndarray, n: int, other: float, block: int) -> np.ndarray:
    trips = -(-n // block)
    padded = np.full(trips * block, other, np.float64)
    padded[:n] = x[:n]
    weights = np.arange(1, trips + 1, dtype=np.float64)[:, None]
    return (padded.reshape(trips, block) * weights).sum(axis=0) if trips else np.zeros(block)


@tilec.jit
def advancing_pointers(x, y, out, trips, BLOCK: tl.constexpr, STAGES: tl.constexpr):
    """Two fp16 streams walked by loop-carried pointers (``p += BLOCK``) and an integer offset
    (``o += BLOCK``): out[j] = sum_k x[k*BLOCK + j] * y[k*BLOCK + j] + k."""
    offs = tl.arange(0, BLOCK)
    px = x + offs
    o = offs
    acc = tl.zeros([BLOCK], tl.float32)
    for k in tl.range(0, trips, num_stages=STAGES):
        a = tl.load(px).to(tl.float32)
        b = tl.load(y + o).to(tl.float32)
        acc += a * b + k
        px += BLOCK
        o += BLOCK
    tl.store(out + offs, acc)


def advancing_pointers_ref(x: np.ndarray, y: np.ndarray, trips: int, block: int) -> np.ndarray:
    a = x[: trips * block].astype(np.float64).reshape(trips, block)
    b = y[: trips * block].astype(np.float64).reshape(trips, block)
    return (a * b).sum(axis=0) + trips * (trips - 1) / 2


@tilec.jit
def tile_rows(x, out, n_rows, n_cols, ROWS: tl.constexpr, COLS: tl.constexpr,
              STAGES: tl.constexpr):
    """2-D tiles [ROWS, COLS] of an n_rows x n_cols matrix summed over its row blocks (masked
    on both axes, other=-1): out[i, j] = sum_k x'[k*ROWS + i, j]."""
    ri = tl.arange(0, ROWS)[:, None]
    cj = tl.arange(0, COLS)[None, :]
    acc = tl.zeros([ROWS, COLS], tl.float32)
    for r0 in tl.range(0, n_rows, ROWS, num_stages=STAGES):
        mask = (r0 + ri < n_rows) & (cj < n_cols)
        acc += tl.load(x + (r0 + ri) * n_cols + cj, mask=mask, other=-1.0)
    tl.store(out + ri * COLS + cj, acc)


def tile_rows_ref(x: np.ndarray, n_rows: int, n_cols: int, rows: int, cols: int) -> np.ndarray:
    trips = -(-n_rows // rows)
    padded = np.full((max(trips, 1) * rows, cols), -1.0)
    padded[:n_rows, :n_cols] = x[: n_rows * n_cols].reshape(n_rows, n_cols)
    return padded.reshape(-1, rows, cols)[:trips].sum(axis=0) if trips else np.zeros((rows, cols))


@tilec.jit
def gather_rows(x, idx, out, n, BLOCK: tl.constexpr, STAGES: tl.constexpr):
    """An indirect load (its address comes from another load) stays a plain load; the index
    load is pipelined."""
    offs = tl.arange(0, BLOCK)
    acc = tl.zeros([BLOCK], tl.float32)
    for start in tl.range(0, n, BLOCK, num_stages=STAGES):
        i = tl.load(idx + start + offs, mask=start + offs < n, other=0)
        acc += tl.load(x + i, mask=start + offs < n, other=0.0)
    tl.store(out + offs, acc)


@tilec.jit
def guarded_load(x, out, n, flag, BLOCK: tl.constexpr, STAGES: tl.constexpr):
    """A load under a run-time ``if`` in the body is not copied ahead (its address may be
    invalid when the branch is not taken)."""
    offs = tl.arange(0, BLOCK)
    acc = tl.zeros([BLOCK], tl.float32)
    for start in tl.range(0, n, BLOCK, num_stages=STAGES):
        if flag != 0:
            acc += tl.load(x + start + offs)
    tl.store(out + offs, acc)


@tilec.jit
def softmax_persistent(out_ptr, in_ptr, in_stride, out_stride, n_rows, n_cols,
                       BLOCK: tl.constexpr, num_stages: tl.constexpr):
    """Row softmax, each program walking rows start, start + programs, ... (the persistent form
    of Triton's fused-softmax tutorial)."""
    start = tl.program_id(0)
    step = tl.num_programs(0)
    for row in tl.range(start, n_rows, step, num_stages=num_stages):
        cols = tl.arange(0, BLOCK)
        mask = cols < n_cols
        x = tl.load(in_ptr + row * in_stride + cols, mask=mask, other=-float("inf"))
        z = x - tl.max(x, axis=0)
        num = tl.exp(z)
        tl.store(out_ptr + row * out_stride + cols, num / tl.sum(num, axis=0), mask=mask)


@tilec.jit
def prefix_through_memory(x, out, n, BLOCK: tl.constexpr, STAGES: tl.constexpr):
    """x[i] = 2 * x[i-1] + x[i] row by row, in place: each iteration reads what the previous one
    stored, so its loads must not be copied ahead; the loads of ``out``'s source stay legal."""
    offs = tl.arange(0, BLOCK)
    for i in tl.range(1, n, num_stages=STAGES):
        prev = tl.load(x + (i - 1) * BLOCK + offs)
        tl.store(x + i * BLOCK + offs, 2.0 * prev + tl.load(x + i * BLOCK + offs))
    tl.store(out + offs, tl.load(x + (n - 1) * BLOCK + offs))


def prefix_through_memory_ref(x: np.ndarray, n: int) -> np.ndarray:
    y = x.astype(np.float64).copy()
    for i in range(1, n):
        y[i] = 2.0 * y[i - 1] + y[i]
    return y


@tilec.jit
def column_sums_plain(x, out, n_rows, n_cols, stride, BLOCK: tl.constexpr):
    """column_sums over a plain ``range``: no tl.dot, so the launch's num_stages leaves it be."""
    cols = tl.arange(0, BLOCK)
    acc = tl.zeros([BLOCK], tl.float32)
    for r in range(0, n_rows):
        acc += tl.load(x + r * stride + cols, mask=cols < n_cols, other=0.0)
    tl.store(out + cols, acc)
