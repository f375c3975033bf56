"""Tensor expressions and schedules (TVM's te spelling): placeholder, compute, reduce_axis,
sum / max / min, casts, select, create_schedule and the Stage primitives. Every misuse raises
weft.Error with a message naming the tensor, stage or loop."""
from . import _weft

__all__ = ["Expr", "IterVar", "Reduce", "Tensor", "Stage", "Schedule", "GemmIntrinsic",
           "placeholder", "compute", "reduce_axis", "sum", "max", "min", "cast", "const",
           "select", "create_schedule", "gemm_intrinsic", "thread_axis"]

# The C++ extension's weft._weft.te submodule, under this module's names.
globals().update({n: getattr(_weft.te, n) for n in __all__ if n != "thread_axis"})


def thread_axis(name):
    """A thread axis for Stage.bind: "blockIdx.x".."threadIdx.z", or "vthread" (virtual
    threads). Weft's bind takes the name itself; this is TVM's spelling."""
    return name
