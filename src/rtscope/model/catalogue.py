"""The bench catalogue a target offers: benches, the metrics they produce, their parameters."""

import json
from dataclasses import dataclass
from typing import Any, NamedTuple

from rtscope.errors import ProbeError
from rtscope.model.values import exact

LIST_FORMAT = "rtscope-bench-list"
LIST_VERSION = 1

ParamValue = int | float | bool | str

_BOOLEANS = {"true": True, "yes": True, "1": True, "false": False, "no": False, "0": False}


@dataclass(frozen=True)
class Param:
    """One parameter of a bench. The default is text, as the probe lists it; min and max are numbers; a
    text parameter may declare the only values it takes (choices)."""

    name: str
    type: str
    default: str | None
    min: float | None
    max: float | None
    description: str
    choices: tuple[str, ...] = ()

    def convert(self, text: str) -> ParamValue:
        """The typed value of ``text`` for this parameter (int, float, bool or text).

        Raises ValueError with a message fit for the user when ``text`` is not of the parameter's type,
        is out of its range or is not one of its choices. Types rtscope does not know pass through as text
        for the probe to check.
        """
        if self.choices and text not in self.choices:
            raise ValueError(f"{self.name} expects one of {', '.join(self.choices)}, not {text!r}")
        if self.type == "bool":
            if text.lower() not in _BOOLEANS:
                raise ValueError(f"{self.name} expects true or false, not {text!r}")
            return _BOOLEANS[text.lower()]
        if self.type not in ("int", "float", "double"):
            return text
        number_type = int if self.type == "int" else float
        try:
            value = number_type(text)
        except ValueError:
            raise ValueError(
                f"{self.name} expects {'an integer' if number_type is int else 'a number'}, not {text!r}"
            ) from None
        self._check_range(value)
        return value

    def range_text(self) -> str:
        """The allowed range as "min..max", either end left empty when unbounded, or the choices as
        "a|b|c"."""
        if self.choices:
            return "|".join(self.choices)
        if self.min is None and self.max is None:
            return ""
        return "..".join("" if bound is None else exact(bound) for bound in (self.min, self.max))

    def _check_range(self, value: float) -> None:
        if self.min is not None and value < self.min:
            raise ValueError(f"{self.name} must be at least {exact(self.min)}, not {value}")
        if self.max is not None and value > self.max:
            raise ValueError(f"{self.name} must be at most {exact(self.max)}, not {value}")


@dataclass(frozen=True)
class Bench:
    """A bench a target can run: its id, what it measures, and its parameters."""

    id: str
    summary: str
    metrics: tuple[str, ...]
    params: tuple[Param, ...]

    def param(self, name: str) -> Param | None:
        """The parameter called ``name``, or None when this bench has none of that name."""
        return next((p for p in self.params if p.name == name), None)


@dataclass(frozen=True)
class Suite:
    """A named set of benches run together (``rtscope run micro``)."""

    id: str
    summary: str
    benches: tuple[str, ...]


class Catalogue(NamedTuple):
    """What a target offers: its benches and its suites."""

    benches: list[Bench]
    suites: list[Suite]


def parse_bench_list(text: str, source: str) -> Catalogue:
    """The benches and suites of a bench-list document (what ``rtscope-probe list --json`` prints).

    Raises ProbeError naming ``source`` when the text is not such a document.
    """
    try:
        doc = json.loads(text)
        if doc.get("format") != LIST_FORMAT or doc.get("version") != LIST_VERSION:
            raise ValueError(f"expected format {LIST_FORMAT} version {LIST_VERSION}")
        suites = [Suite(entry["id"], entry["summary"], tuple(entry["benches"])) for entry in doc.get("suites", [])]
        return Catalogue([_bench(entry) for entry in doc["benches"]], suites)
    except KeyError as error:
        raise ProbeError(f"{source} gave no valid bench list (missing field {error})") from None
    except (ValueError, TypeError, AttributeError) as error:
        raise ProbeError(f"{source} gave no valid bench list ({error})") from None


def expand_suites(names: tuple[str, ...], suites: list[Suite]) -> tuple[str, ...]:
    """``names`` with each suite name replaced by its benches, in order. A bench that a suite brings is
    run once however often it comes; a bench named twice by itself stays twice, for the caller to refuse."""
    by_id = {suite.id: suite for suite in suites}
    expanded: list[str] = []
    from_suites: set[str] = set()
    for name in names:
        if name in by_id:
            new = [bench for bench in by_id[name].benches if bench not in expanded]
            expanded += new
            from_suites.update(new)
        elif name not in from_suites:
            expanded.append(name)
    return tuple(expanded)


def param_type_of(value: ParamValue) -> str:
    """The parameter type name ("int", "float", "bool", "string") of a recorded parameter value."""
    # bool first: in Python a bool is also an int.
    for python_type, name in ((bool, "bool"), (int, "int"), (float, "float")):
        if isinstance(value, python_type):
            return name
    return "string"


def _bench(entry: dict[str, Any]) -> Bench:
    params = tuple(
        Param(
            p["name"],
            p["type"],
            p["default"],
            _number(p.get("min")),
            _number(p.get("max")),
            p["description"],
            tuple(p.get("choices", ())),
        )
        for p in entry["params"]
    )
    return Bench(entry["id"], entry["summary"], tuple(entry["metrics"]), params)


def _number(value: str | float | None) -> float | None:
    # The bench list may give a bound as a JSON number or as text; either way it is a number.
    return None if value is None else float(value)
