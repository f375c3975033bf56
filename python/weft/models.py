"""Built-in networks as graphs (deterministic synthetic weights, no download)."""
from . import _weft

resnet18 = _weft.models.resnet18
synthetic_input = _weft.models.synthetic_input

__all__ = ["resnet18", "synthetic_input"]
