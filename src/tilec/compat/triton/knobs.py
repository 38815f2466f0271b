"""``triton.knobs``: tilec's knobs, plus the hook knobs Triton hosts read before a launch.

``knobs.runtime.launch_enter_hook`` / ``launch_exit_hook`` / ``jit_post_compile_hook`` read as
None (tilec calls no such hooks); assigning one is refused like every knob tilec does not honour.
"""

from __future__ import annotations

from typing import Any

from ... import knobs as _knobs


class runtime_knobs(_knobs.runtime_knobs):
    launch_enter_hook = None
    launch_exit_hook = None
    jit_post_compile_hook = None
    jit_cache_hook = None


# the subclass hook collects only this class's own knobs: it honours its base's
runtime_knobs.knob_descriptors = dict(_knobs.runtime_knobs.knob_descriptors)

_RUNTIME: list[runtime_knobs] = []


def __getattr__(name: str) -> Any:
    if name == "runtime":
        if not _RUNTIME:
            _RUNTIME.append(runtime_knobs())
        return _RUNTIME[0]
    return getattr(_knobs, name)
