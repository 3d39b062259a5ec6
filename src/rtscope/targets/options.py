"""The one parser of a ``--target`` value's ``key=value`` options, for every kind (rtscope.targets.registry).

An option is named, typed, has a default and a help line; a value that is not ``key=value``, an unknown
key (with "did you mean" for a near miss), a key given twice, or a value its type refuses is one
RtscopeError line in the same words for every kind: ``--target SPEC: WHAT (expected USAGE)``.
"""

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from rtscope.errors import RtscopeError, did_you_mean


@dataclass(frozen=True)
class Option:
    """One ``key=value`` option of a kind: ``convert`` turns the text into the value or raises ValueError
    with what it expected; ``values`` is how the usage names what it takes ("N", "icount|host")."""

    name: str
    values: str
    default: Any
    help: str
    convert: Callable[[str], Any]

    @property
    def usage(self) -> str:
        return f"{self.name}={self.values}"


def integer(name: str, low: int, high: int | None, default: Any, help: str, values: str = "N") -> Option:
    """An option taking a whole number from ``low`` to ``high`` (None: no bound)."""

    def convert(text: str) -> int:
        if not text.isdigit() or int(text) < low or (high is not None and int(text) > high):
            raise ValueError(f"a whole number from {low}" + (f" to {high}" if high is not None else " up"))
        return int(text)

    return Option(name, values, default, help, convert)


def choice(name: str, allowed: Sequence[str], default: Any, help: str) -> Option:
    """An option taking one of ``allowed``."""

    def convert(text: str) -> str:
        if text not in allowed:
            raise ValueError(f"one of {', '.join(allowed)}{did_you_mean(text, list(allowed))}")
        return text

    return Option(name, "|".join(allowed), default, help, convert)


def text(name: str, values: str, default: Any, help: str) -> Option:
    """An option taking any text that is not empty."""

    def convert(value: str) -> str:
        if not value:
            raise ValueError(f"a {values}")
        return value

    return Option(name, values, default, help, convert)


def refuse(spec: str, what: str, usage: str) -> RtscopeError:
    """The error every kind gives about its ``--target`` value ``spec``: one line, naming the usage."""
    return RtscopeError(f"--target {spec}: {what} (expected {usage})")


def pairs(spec: str, words: Sequence[str], usage: str) -> dict[str, str]:
    """``words`` ("key=value" each) as a dict, in order; each must be key=value with both sides, each key
    at most once."""
    found: dict[str, str] = {}
    for word in words:
        key, equals, value = word.partition("=")
        if not key or not equals:
            raise refuse(spec, f"{word!r} is not KEY=VALUE", usage)
        if key in found:
            raise refuse(spec, f"{key} is given twice", usage)
        found[key] = value
    return found


def parse(spec: str, words: Sequence[str], options: Sequence[Option], usage: str) -> dict[str, Any]:
    """Every option's value: the one ``words`` gives, converted, else its default."""
    known = {option.name: option for option in options}
    values = {option.name: option.default for option in options}
    for key, value in pairs(spec, words, usage).items():
        option = known.get(key)
        if option is None:
            raise refuse(spec, f"no option {key!r}{did_you_mean(key, list(known))}", usage)
        try:
            values[key] = option.convert(value)
        except ValueError as error:
            # "is not": the message ends "(expected USAGE)", and says "expected" once.
            raise refuse(spec, f"{key}={value} is not {error}", usage) from None
    return values


def usage(head: str, options: Sequence[Option]) -> str:
    """A kind's usage line: ``head`` and each option in brackets ("qemu:ARCH:FLAVOUR[:cpus=N]…")."""
    return head + "".join(f"[:{option.usage}]" for option in options)
