"""A kernel for the doctor-vs-compiler sweep (kernels must live in a file the frontend can read)."""

import tilec
import tilec.language as tl


@tilec.jit
def add(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(y_ptr + offs, tl.load(x_ptr + offs, mask=mask) + 1.0, mask=mask)
