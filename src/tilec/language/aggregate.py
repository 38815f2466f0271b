"""``@triton.aggregate``: a user class whose instances bundle kernel values under field names.

The decorator returns a new class built from the annotated fields (inherited from aggregate
bases first, the class's own last) and the class's methods. An instance is filled by the class's
``__init__`` (or, without one, from its fields in order, with their defaults) and is immutable
afterwards; ``aggregate_replace`` copies one with some fields changed. Compile-time field values
are held as ``tl.constexpr``. The frontend sees an aggregate through ``__tilec_aggregate__``:
its Tensors flatten in field order, so it crosses ``if`` and loops like a tuple, and its @jit
methods are inlined with the instance bound first.
"""

from __future__ import annotations

import inspect
import sys
from typing import Any

from ..constexpr import constexpr
from ..errors import UsageError
from ..frontend.values import Struct, Tensor

_MISSING = object()
# class-body entries the built class gets from AggregateBase or from the decorator instead
_NOT_COPIED = frozenset({"__dict__", "__weakref__", "__init__", "__annotations__", "__new__"})


def _fields_of(cls: type, caller: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """Annotations and defaults: inherited aggregate fields first, the class's own after. String
    annotations resolve in the class's module or, for a module that is not in ``sys.modules``
    (run from a spec, ``exec``'d), in ``caller``: the globals the decorator was applied in."""
    annotations: dict[str, Any] = {}
    defaults: dict[str, Any] = {}
    for base in reversed(cls.__mro__[1:]):
        if base is object:
            continue
        if not getattr(base, "__tilec_aggregate__", False):
            raise TypeError(
                f"Aggregates can only inherit from other aggregates, but got non-aggregate "
                f"base: {base}"
            )
        annotations.update(base.__aggregate_annotations__)
        defaults.update(base.__aggregate_defaults__)
    module = sys.modules.get(cls.__module__)
    namespace = vars(module) if module is not None else caller
    own = inspect.get_annotations(cls, globals=namespace, locals=dict(vars(cls)), eval_str=True)
    for name, hint in own.items():
        annotations[name] = hint
        value = cls.__dict__.get(name, _MISSING)
        if value is not _MISSING and not callable(value):
            defaults[name] = value
    return annotations, defaults


def _is_kernel_value(x: Any) -> bool:
    return isinstance(x, (Tensor, *Struct)) or getattr(type(x), "__tilec_aggregate__", False)


def wrap_field(x: Any) -> Any:
    """A field's value as an aggregate holds it: kernel values as they are, tuples element by
    element, every other (compile-time) value as a ``tl.constexpr``."""
    if isinstance(x, tuple) and not _is_kernel_value(x):
        wrapped = tuple(wrap_field(v) for v in x)
        return type(x)(*wrapped) if hasattr(x, "_fields") else wrapped
    if isinstance(x, constexpr) or _is_kernel_value(x):
        return x
    return constexpr(x)


def _matches(value: Any, annotation: Any) -> bool:
    if annotation is Any or not isinstance(annotation, type):
        return True  # typing constructs (Optional[...], generics) are not checked
    if annotation is tuple:
        return isinstance(value, tuple)
    return isinstance(value, annotation)


def _default_init(name: str, fields: tuple[str, ...], defaults: dict[str, Any]) -> Any:
    def init(self: Any, *args: Any, **kwargs: Any) -> None:
        if len(args) > len(fields):
            raise TypeError(
                f"{name}.__init__() takes {len(fields) + 1} positional arguments "
                f"but {len(args) + 1} were given"
            )
        for index, field in enumerate(fields):
            if index < len(args):
                if field in kwargs:
                    raise TypeError(f"{name}.__init__() got multiple values for argument '{field}'")
                value = args[index]
            elif field in kwargs:
                value = kwargs.pop(field)
            elif field in defaults:
                value = defaults[field]
            else:
                raise TypeError(f"{name}.__init__() missing required argument: '{field}'")
            setattr(self, field, value)
        if kwargs:
            raise TypeError(
                f"{name}.__init__() got an unexpected keyword argument '{next(iter(kwargs))}'"
            )

    return init


class AggregateBase:
    """What every aggregate class shares: construction, immutability, flattening."""

    __tilec_aggregate__ = True
    __aggregate_fields__: tuple[str, ...] = ()
    __aggregate_annotations__: dict[str, Any] = {}
    __aggregate_defaults__: dict[str, Any] = {}
    __aggregate_init__: Any = None

    def __new__(cls, *args: Any, **kwargs: Any) -> Any:
        instance = object.__new__(cls)
        object.__setattr__(instance, "_aggregate_done", False)
        init = cls.__aggregate_init__
        if getattr(init, "__tilec_jit__", False):
            raise UsageError(
                f"{cls.__name__}.__init__ is a @jit function: construct {cls.__name__} inside "
                "a kernel"
            )
        init(instance, *args, **kwargs)
        instance._finish()
        return instance

    def _finish(self) -> None:
        for name in type(self).__aggregate_fields__:
            if name not in self.__dict__:
                raise AttributeError(
                    f"constructor for {type(self).__name__} did not initialize attribute '{name}'"
                )
        object.__setattr__(self, "_aggregate_done", True)

    def __setattr__(self, name: str, value: Any) -> None:
        cls = type(self)
        if name not in cls.__aggregate_annotations__:
            raise AttributeError(f"{cls.__name__} has no attribute '{name}'")
        if self.__dict__.get("_aggregate_done", False):
            raise AttributeError(
                f"cannot assign to field '{name}' on immutable aggregate {cls.__name__}; "
                "use aggregate_replace() to construct a modified copy"
            )
        value = wrap_field(value)
        annotation = cls.__aggregate_annotations__[name]
        if not _matches(value, annotation):
            raise TypeError(f"Expected {annotation} for attribute '{name}', got {type(value)}")
        object.__setattr__(self, name, value)

    def __repr__(self) -> str:
        body = ", ".join(f"{n}={self.__dict__.get(n)!r}" for n in type(self).__aggregate_fields__)
        return f"{type(self).__name__}({body})"

    # -- the frontend's view: field values in order, and a copy with new ones ---------------
    def aggregate_values(self) -> list[Any]:
        return [self.__dict__[n] for n in type(self).__aggregate_fields__]

    def with_aggregate_values(self, values: list[Any]) -> Any:
        copy = object.__new__(type(self))
        for name, value in zip(type(self).__aggregate_fields__, values):
            object.__setattr__(copy, name, value)
        object.__setattr__(copy, "_aggregate_done", True)
        return copy


def aggregate(cls: type) -> type:
    """Triton's ``@triton.aggregate``: ``cls`` as an aggregate class (see the module doc)."""
    annotations, defaults = _fields_of(cls, sys._getframe(1).f_globals)
    fields = tuple(annotations)
    init = cls.__dict__.get("__init__") or _default_init(cls.__name__, fields, defaults)
    namespace: dict[str, Any] = {
        "__module__": cls.__module__,
        "__qualname__": cls.__qualname__,
        "__doc__": cls.__doc__,
        "__aggregate_fields__": fields,
        "__aggregate_annotations__": annotations,
        "__aggregate_defaults__": defaults,
        "__aggregate_init__": init,
    }
    own_defaults = inspect.get_annotations(cls)
    for name, member in cls.__dict__.items():
        if name not in namespace and name not in _NOT_COPIED and name not in own_defaults:
            namespace[name] = member  # methods (@jit ones too), properties, class constants
    bases = tuple(b for b in cls.__bases__ if b is not object) or (AggregateBase,)
    return type(cls.__name__, bases, namespace)


def aggregate_replace(instance: Any, **changes: Any) -> Any:
    """A copy of the aggregate ``instance`` with the named fields replaced."""
    cls = type(instance)
    if not getattr(cls, "__tilec_aggregate__", False):
        raise TypeError(f"aggregate_replace() expects an aggregate instance, got {cls}")
    for name in changes:
        if name not in cls.__aggregate_fields__:
            raise TypeError(f"{cls.__name__} has no field '{name}'")
    values = {name: instance.__dict__[name] for name in cls.__aggregate_fields__}
    values.update(changes)
    copy = object.__new__(cls)
    object.__setattr__(copy, "_aggregate_done", False)
    for name, value in values.items():
        setattr(copy, name, value)
    object.__setattr__(copy, "_aggregate_done", True)
    return copy


aggregate_replace.__tilec_takes_kernel_values__ = True  # type: ignore[attr-defined]
