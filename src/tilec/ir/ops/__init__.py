"""Every tile IR operation, grouped by concept; import ops from here."""

from .arith import (
    MATH_FUNCTIONS,
    BinaryKind,
    BinaryOp,
    BitcastOp,
    CastOp,
    CompareKind,
    CompareOp,
    MathOp,
    SelectOp,
)
from .control import ConditionOp, ForOp, IfOp, WhileOp, YieldOp
from .creation import ConstantOp, MakeRangeOp, NumProgramsOp, ProgramIdOp
from .debug import AssertOp, BoundsCheckOp, PrintOp
from .dot import DotOp
from .func import FuncOp, ModuleOp, ReturnOp
from .hints import AssumeOp, HintOp
from .memory import (
    DEFAULT_ORDERING,
    AddPtrOp,
    AtomicCASOp,
    AtomicKind,
    AtomicRMWOp,
    LoadOp,
    MemoryScope,
    MemorySemantic,
    Ordering,
    StoreOp,
)
from .reduce import ReduceOp, ScanOp
from .shape import (
    BroadcastOp,
    CatOp,
    ExpandDimsOp,
    FlipOp,
    JoinOp,
    ReshapeOp,
    SplatOp,
    SplitOp,
    TransOp,
)

__all__ = [
    "DEFAULT_ORDERING",
    "MATH_FUNCTIONS",
    "AddPtrOp",
    "AssertOp",
    "AssumeOp",
    "AtomicCASOp",
    "AtomicKind",
    "AtomicRMWOp",
    "BinaryKind",
    "BinaryOp",
    "BitcastOp",
    "BoundsCheckOp",
    "BroadcastOp",
    "CastOp",
    "CatOp",
    "CompareKind",
    "CompareOp",
    "ConditionOp",
    "ConstantOp",
    "DotOp",
    "ExpandDimsOp",
    "FlipOp",
    "ForOp",
    "FuncOp",
    "HintOp",
    "IfOp",
    "JoinOp",
    "LoadOp",
    "MakeRangeOp",
    "MathOp",
    "MemoryScope",
    "MemorySemantic",
    "ModuleOp",
    "NumProgramsOp",
    "Ordering",
    "PrintOp",
    "ProgramIdOp",
    "ReduceOp",
    "ReshapeOp",
    "ReturnOp",
    "ScanOp",
    "SelectOp",
    "SplatOp",
    "SplitOp",
    "StoreOp",
    "TransOp",
    "WhileOp",
    "YieldOp",
]
