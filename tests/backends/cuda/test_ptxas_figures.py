"""Register and spill figures come from the kernel's own entry in the assembler's log, not from
a device function listed before it (the occupancy arithmetic of persistent kernels reads them)."""

from __future__ import annotations

from tilec.backends.cuda.assemble import _parse

LOG = """\
ptxas info    : 0 bytes gmem
ptxas info    : Function properties for helper
    24 bytes stack frame, 24 bytes spill stores, 24 bytes spill loads
ptxas info    : Used 40 registers, used 0 barriers
ptxas info    : Compiling entry function 'kernel' for 'sm_90a'
ptxas info    : Function properties for kernel
    8 bytes stack frame, 4 bytes spill stores, 4 bytes spill loads
ptxas info    : Used 26 registers, used 1 barriers, 380 bytes cmem[0]
"""


def test_figures_are_the_entry_functions() -> None:
    assert _parse(LOG) == (26, 4)


def test_a_log_without_an_entry_line_still_reads() -> None:
    assert _parse("ptxas info    : Used 12 registers\n") == (12, 0)
