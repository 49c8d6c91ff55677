"""Options declared as data: one :class:`Option` per option, and what is generated from them.

An option is declared once, as an :class:`Option` in a table (a tuple): its name, its type,
the check that normalises a value or refuses it (a :mod:`prfeval._core.checks` helper), its
default, its documentation, its command-line spelling (a :class:`Flag`) and how a result
prints it (``setting``). From one table come

* the fields of a frozen options class, its validation and its docstring
  (:func:`options_class`: :class:`~prfeval._core.options.EvalOptions`,
  :class:`~prfeval._comparison.options.ComparisonOptions`);
* the keyword arguments the API functions take (:func:`values_type`, a ``TypedDict``);
* the settings a result reports (:func:`settings_of`);
* the click options of the commands (``prfeval.cli._options`` reads the :class:`Flag` of each
  entry; this module imports no click).

Adding an option is one entry in its table; nothing else lists options.
"""

from __future__ import annotations

import difflib
import inspect
import textwrap
from collections.abc import Callable, Mapping
from dataclasses import InitVar, dataclass, replace
from typing import Any, ClassVar, Literal, Self, TypedDict, TypeVar

from prfeval._core.errors import UsageError

__all__ = [
    "FLAG_KINDS",
    "DeclaredOptions",
    "Flag",
    "Option",
    "build_options",
    "check_table",
    "options_class",
    "settings_of",
    "validate",
    "values_type",
]

#: What a flag reads: a string, a number, one of ``choices``, an on/off flag, or the file of
#: query ids a query set is read from.
FlagKind = Literal["text", "int", "float", "choice", "flag", "ids-file"]
FLAG_KINDS: tuple[str, ...] = ("text", "int", "float", "choice", "flag", "ids-file")

T = TypeVar("T")


@dataclass(frozen=True)
class Flag:
    """How an option is spelt on the command line (the CLI turns this into a click option).

    Attributes
    ----------
    decls
        The flag's spellings, as click takes them (``("-l", "--level")``).
    help
        Its ``--help`` text.
    kind
        What it reads (:data:`FLAG_KINDS`); ``"choice"`` offers ``choices``.
    choices
        The values of a ``"choice"`` flag, as typed.
    minimum, maximum, open_bounds
        A number's range (inclusive, or exclusive with ``open_bounds``), checked by click.
    default
        The flag's default, as ``--help`` shows it and as the command receives it when the
        flag is not given (``"auto"`` for a format that the option leaves to ``None``);
        ``None``: the option keeps its own default.
    show_default
        Whether ``--help`` shows the default.
    multiple
        Whether the flag may be repeated: the command receives a tuple of the values given
        (empty when none is).
    metavar, dest
        The value's name in ``--help``; the parameter's name when it is not the option's
        (``--bootstrap`` fills ``n_bootstrap``: ``dest`` is ``"n_bootstrap"``).
    convert
        The flag's value -> the option's value, or ``None`` to leave the option its default
        (``"auto"`` -> ``None`` for a format). ``None``: the value as given, and a flag left
        at ``None`` leaves the option's default.
    """

    decls: tuple[str, ...]
    help: str
    kind: FlagKind = "text"
    choices: tuple[str, ...] = ()
    minimum: float | None = None
    maximum: float | None = None
    open_bounds: bool = False
    default: Any = None
    show_default: bool = False
    multiple: bool = False
    metavar: str | None = None
    dest: str | None = None
    convert: Callable[[Any], Any] | None = None

    @property
    def label(self) -> str:
        """The spelling that errors name: the long one (``--level``), else the first."""
        return next((d for d in self.decls if d.startswith("--")), self.decls[0])


@dataclass(frozen=True)
class Option:
    """One option, declared once.

    Attributes
    ----------
    name
        The keyword argument and the attribute (``level``).
    annotation
        Its type once checked, as written in Python (``"int | None"``).
    default
        Its default.
    check
        ``check(name, value)`` -> the value normalised, or a :class:`UsageError` naming
        ``name`` (a helper of :mod:`prfeval._core.checks`, or one built on them).
    doc
        The numpydoc paragraph of the parameter (the options class's docstring is made of
        them).
    given
        The type a caller may pass when it is wider than ``annotation`` (a list of query ids
        for a frozenset); ``None``: ``annotation``.
    flag
        The command-line flag, or ``None`` for an option the CLI does not offer.
    setting
        ``setting(options)`` -> what a result's ``settings`` shows under the option's name,
        or ``None`` for an option a result does not show.
    stored
        ``False`` for an alias: an init-only argument that sets other fields (``judged_only``
        sets ``unjudged``), read back through ``setting``; the class's ``__post_init__``
        receives it.
    """

    name: str
    annotation: str
    default: Any
    check: Callable[[str, Any], Any]
    doc: str
    given: str | None = None
    flag: Flag | None = None
    setting: Callable[[Any], Any] | None = None
    stored: bool = True


def check_table(table: tuple[Option, ...]) -> None:
    """Refuse a table with a repeated name or flag, or a flag kind that does not exist: a
    mistake in a declaration fails on import, not in a user's command."""
    names = [o.name for o in table]
    repeated = sorted({n for n in names if names.count(n) > 1})
    if repeated:
        raise ValueError(f"options declared twice: {', '.join(repeated)}")
    spellings = [d for o in table if o.flag for d in o.flag.decls if d.startswith("-")]
    repeated = sorted({d for d in spellings if spellings.count(d) > 1})
    if repeated:
        raise ValueError(f"flags declared twice: {', '.join(repeated)}")
    for o in table:
        if o.flag is not None and o.flag.kind not in FLAG_KINDS:
            raise ValueError(f"{o.name}: unknown flag kind {o.flag.kind!r}")
        if o.flag is not None and o.flag.kind == "choice" and not o.flag.choices:
            raise ValueError(f"{o.name}: a choice flag needs its choices")


def _docstring(summary: str, table: tuple[Option, ...], notes: str) -> str:
    params = "\n".join(
        f"{o.name}\n{textwrap.indent(textwrap.fill(o.doc, 88), '    ')}" for o in table
    )
    text = f"{summary}\n\nParameters\n----------\n{params}\n"
    if notes:
        text += f"\nNotes\n-----\n{notes}\n"
    return textwrap.indent(text, "    ").lstrip()


def options_class(
    table: tuple[Option, ...], *, summary: str, notes: str = ""
) -> Callable[[type[T]], type[T]]:
    """A class decorator, written under ``@dataclass(frozen=True)``: the table's options
    become the class's fields (in table order, each with its default; an alias is an
    ``InitVar``) and its docstring's Parameters.

    The class's ``__post_init__`` calls :func:`validate`, which runs each option's check
    (:class:`DeclaredOptions`'s does); the table becomes the class's ``TABLE``.
    """
    check_table(table)

    def apply(cls: type[T]) -> type[T]:
        cls.TABLE = table  # type: ignore[attr-defined]
        own = dict(inspect.get_annotations(cls))
        annotations: dict[str, Any] = {}
        for o in table:
            annotations[o.name] = o.annotation if o.stored else InitVar[o.annotation]  # type: ignore[valid-type]
            setattr(cls, o.name, o.default)
        annotations.update(own)
        cls.__annotations__ = annotations
        cls.__doc__ = _docstring(summary, table, notes)
        return cls

    return apply


def validate(obj: Any, table: tuple[Option, ...]) -> None:
    """Run every stored option's check on a frozen instance, in table order, setting the
    normalised value in place (``np.int64(2)`` becomes ``2``)."""
    for o in table:
        if o.stored:
            object.__setattr__(obj, o.name, o.check(o.name, getattr(obj, o.name)))


def values_type(name: str, table: tuple[Option, ...], doc: str) -> Any:
    """The ``TypedDict`` of the options by name, as the API functions take them as keywords
    (``**option_values: Unpack[OptionValues]``)."""
    typed = TypedDict(name, {o.name: o.given or o.annotation for o in table}, total=False)  # type: ignore[operator]
    typed.__doc__ = doc
    return typed


def settings_of(obj: Any, table: tuple[Option, ...]) -> dict[str, Any]:
    """The settings a result reports, in table order: each shown option under its name."""
    return {o.name: o.setting(obj) for o in table if o.setting is not None}


def build_options(
    cls: type[T], table: tuple[Option, ...], base: T | None, values: Mapping[str, Any]
) -> T:
    """``base`` (or the defaults) with ``values`` replacing some of them; an unknown name is
    a UsageError suggesting the closest known one and listing them all."""
    if base is not None and not isinstance(base, cls):
        raise UsageError(f"options must be an {cls.__name__}, got a {type(base).__name__}")
    known = sorted(o.name for o in table)
    unknown = sorted(set(values) - set(known))
    if unknown:
        close = difflib.get_close_matches(unknown[0], known, n=1)
        hint = f"; did you mean {close[0]!r}?" if close else ""
        raise UsageError(
            f"unknown option {unknown[0]!r}{hint} The options are {', '.join(known)}."
        )
    if base is None:
        return cls(**values)
    return replace(base, **values) if values else base  # type: ignore[type-var]


class DeclaredOptions:
    """What every options class made by :func:`options_class` does with its table
    (``TABLE``): check each value when made, build from keywords, show its settings.

    A subclass is written ``@dataclass(frozen=True)`` over ``@options_class(TABLE, ...)``.
    """

    TABLE: ClassVar[tuple[Option, ...]] = ()

    def __post_init__(self) -> None:
        validate(self, self.TABLE)

    @classmethod
    def build(cls, options: Self | None = None, /, **values: Any) -> Self:
        """``options`` (or the defaults) with ``values`` replacing some of them; an unknown
        name is a UsageError suggesting the closest known one and listing them all."""
        return build_options(cls, cls.TABLE, options, values)

    def settings(self) -> dict[str, Any]:
        """The settings a result reports of these options (:func:`settings_of`)."""
        return settings_of(self, self.TABLE)

    def values(self) -> dict[str, Any]:
        """Every stored option by name, as the API function that takes them as keywords
        receives them."""
        return {o.name: getattr(self, o.name) for o in self.TABLE if o.stored}
