"""Compilation options of the core, and the raw pointers its functions share.

Every function of the core takes ``sp``, the address of a :class:`Pointers` tuple on the
stack of the entry point (``loop.py``), and reads it as ``s = sp[0]``: ``s.ff`` is the data
pointer of the array ``ff`` of :class:`validation.simulator.layout.Arrays`, and so on for every
array, under the same name. The helpers index those pointers by hand (row-major:
``s.ff[f * FLOW_FLOATS + FlowFloat.CWND_PACKETS]``). Numba would otherwise pass each array to
each helper as a structure of 7-9 words and update its reference count atomically on every
call, which cost more than half of the run time. The arrays are owned by the driver and
outlive every call.
"""

from __future__ import annotations

import operator
from collections import namedtuple
from typing import Any

from numba import njit, types
from numba.core import cgutils
from numba.core.errors import TypingError
from numba.extending import intrinsic, overload

from validation.simulator.core import cache  # noqa: F401  (registers the cache locators)
from validation.simulator.layout import Arrays

#: Compilation options. Cached on disk (see ``cache.py`` for how a change to any module of
#: the core invalidates the cache). No bounds checks: the helpers index raw pointers, and the
#: sample path is checked against the reference implementation. Division by zero follows
#: numpy (inf/nan) instead of testing every division; no divisor here can be zero. No
#: fastmath: it would reorder floating-point arithmetic and break the exact agreement with the
#: reference implementation.
jit = njit(cache=True, boundscheck=False, error_model="numpy")

#: The data pointers of an :class:`Arrays`, field by field.
Pointers = namedtuple("Pointers", Arrays._fields)  # type: ignore[misc]


def _pointers_of(typingctx: Any, arrays: Any) -> Any:
    """The data pointers of a tuple of C-contiguous arrays, as a :class:`Pointers`."""
    if getattr(arrays, "instance_class", None) is not Arrays:
        raise TypingError("pointers() needs an Arrays tuple")
    members: Any = arrays.types
    for array in members:
        if not isinstance(array, types.Array) or array.layout != "C":
            raise TypingError("pointers() needs C-contiguous arrays")
    pointer_types = [types.CPointer(a.dtype) for a in members]
    result: Any = types.NamedTuple(pointer_types, Pointers)
    sig = result(arrays)

    def codegen(context, builder, signature, args):
        (tup,) = args
        ptrs = []
        for i, array_type in enumerate(signature.args[0].types):
            array = builder.extract_value(tup, i)
            ptrs.append(context.make_array(array_type)(context, builder, array).data)
        return cgutils.pack_struct(builder, ptrs)

    return sig, codegen


pointers: Any = intrinsic(_pointers_of)


def _address_of(typingctx: Any, value: Any) -> Any:
    """A pointer to a copy of ``value`` on the caller's stack (valid until it returns)."""
    sig = types.CPointer(value)(value)

    def codegen(context, builder, signature, args):
        return cgutils.alloca_once_value(builder, args[0])

    return sig, codegen


#: ``address(pointers(arrays))`` is what the core's functions take as ``sp``: one machine word
#: however many arrays there are (passing the tuple itself would pass every pointer as an
#: argument of every call, which cost a third of the run time). ``s = sp[0]`` reads it.
address: Any = intrinsic(_address_of)


# numba indexes a raw pointer with an integer only; these let a field of a 1-D layout (an
# IntEnum member such as ``GlobalInt.FLOWS``) index one directly, at no cost once inlined.
@overload(operator.getitem)
def _getitem_field(ptr, field):
    if isinstance(ptr, types.CPointer) and isinstance(field, types.IntEnumMember):
        return lambda ptr, field: ptr[field.value]
    return None


@overload(operator.setitem)
def _setitem_field(ptr, field, value):
    if isinstance(ptr, types.CPointer) and isinstance(field, types.IntEnumMember):

        def impl(ptr, field, value):
            ptr[field.value] = value

        return impl
    return None
