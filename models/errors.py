"""The one exception a model raises for a bad parameter: :class:`ParameterError`.

Every argument check of the model library (:mod:`models.checks` and the few checks written out
in the models) and of the simulator's scenario raises it, so a caller can tell "the input is
outside the model's domain" (the client's to fix) from any other exception (a fault of the code).
"""

from __future__ import annotations

from typing import Any


class ParameterError(ValueError):
    """A parameter outside the domain of a model, naming the parameter and the bound it broke.

    Parameters
    ----------
    name : str
        The parameter, as the function or dataclass that checks it spells it
        (``"capacity_bps"``).
    bound : str
        The bound it broke, as text (``"> 0"``, ``"in (0, 1)"``, ``"<= flows (1000)"``).
    message : str, optional
        The whole message; by default ``"{name} must be {bound}"``.

    Examples
    --------
    >>> err = ParameterError("load", "in (0, 1)", "load must be in (0, 1), got 1.2")
    >>> err.name, err.bound, str(err)
    ('load', 'in (0, 1)', 'load must be in (0, 1), got 1.2')
    """

    def __init__(self, name: str, bound: str, message: str | None = None) -> None:
        self.name = name
        self.bound = bound
        super().__init__(message if message is not None else f"{name} must be {bound}")

    @classmethod
    def got(cls, name: str, bound: str, value: Any) -> ParameterError:
        """``"{name} must be {bound}, got {value!r}"``: the usual message."""
        return cls(name, bound, f"{name} must be {bound}, got {value!r}")

    def __reduce__(self) -> tuple[Any, ...]:
        # Exceptions pickle their ``args`` only; keep the name and bound across processes.
        return (type(self), (self.name, self.bound, str(self)))
