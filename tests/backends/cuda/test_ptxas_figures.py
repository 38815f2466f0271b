"""Register and spill figures come from the kernel's own entry in the assembler's log, not from
a device function listed before it (the occupancy arithmetic of persistent kernels reads them),
in ptxas's words and in nvJitLink 13's."""

from __future__ import annotations

from tilec.backends.cuda.assemble import _entry, _parse

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


# nvJitLink 13 (cuda-bindings 13.x): no "Compiling entry function" line, quoted names, a lower-case
# "used" and local memory instead of spill stores
NVJITLINK_LOG = """\
info    : 0 bytes gmem
info    : Function properties for 'helper':
info    : used 40 registers, used 0 barriers, 24 stack, 0 bytes smem, 0 bytes cmem[0], 48 bytes lmem
info    : Function properties for 'inductor_sum':
info    : used 46 registers, used 1 barriers, 0 stack, 1024 bytes smem, 552 bytes cmem[0], 0 bytes lmem
"""


def test_nvjitlink_figures_are_the_entry_functions() -> None:
    assert _parse(NVJITLINK_LOG, "inductor_sum") == (46, 0)
    assert _parse(NVJITLINK_LOG, "helper") == (40, 24)  # local memory beyond its stack frame


def test_the_entry_is_read_from_the_ptx() -> None:
    ptx = ".version 8.0\n.target sm_90a\n.visible .entry inductor_sum(\n\t.param .u64 p\n)"
    assert _entry(ptx) == "inductor_sum"
    assert _parse(LOG, _entry(ptx.replace("inductor_sum", "kernel"))) == (26, 4)
