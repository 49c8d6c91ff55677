"""Options declared as data: one :class:`Option` per option, and what is generated from them.

An option is declared once, as an :class:`Option` in a table (a tuple): its name, its type,
the check that normalises a value or refuses it (a :mod:`prfeval._core.checks` helper), its
default, its documentation, its command-line spelling (a :class:`Flag`), how a result
prints it (``setting``), whether it changes a result's numbers (``changes_numbers``) and which
engines honour which of its values (``limits``, :class:`Limit`). From one table come

* the validation and the docstring of a frozen options class whose fields are written out
  (:func:`options_class` checks them against the table on import:
  :class:`~prfeval._core.options.EvalOptions`,
  :class:`~prfeval._comparison.options.ComparisonOptions`);
* the keyword arguments the API functions take (a ``TypedDict`` written out, checked by
  :func:`check_values`);
* the settings a result reports (:func:`settings_of`), and those a saved evaluation must
  record and the gate compares (:func:`number_settings`, worded by :func:`setting_words`);
* the click options of the commands (``prfeval.cli._options`` reads the :class:`Flag` of each
  entry; this module imports no click);
* what each engine refuses (:func:`unhonoured`, :func:`refuse_unhonoured`): the compiled
  pass leaves such input to the local reader, Spark refuses it, and the command line starts
  no head start for the pass on such a flag (:func:`flags_not_taken`).

Adding an option is one entry in its table, plus its field written out in the class (which
:func:`options_class` enforces); nothing else lists options.
"""

from __future__ import annotations

import inspect
import textwrap
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from typing import Any, ClassVar, Literal, Self, TypeVar

from prfeval._core.errors import UsageError

__all__ = [
    "ENGINES",
    "FLAG_KINDS",
    "DeclaredOptions",
    "Engine",
    "Flag",
    "Limit",
    "Option",
    "build_options",
    "check_fields",
    "check_table",
    "check_values",
    "flags_not_taken",
    "number_settings",
    "options_class",
    "refuse_unhonoured",
    "setting_words",
    "settings_of",
    "unhonoured",
    "validate",
]

#: What a flag reads: a string, a number, one of ``choices``, an on/off flag, or the file of
#: query ids a query set is read from.
FlagKind = Literal["text", "int", "float", "choice", "flag", "ids-file"]
FLAG_KINDS: tuple[str, ...] = ("text", "int", "float", "choice", "flag", "ids-file")

#: The engines that evaluate a run: this process's pipeline (``local``, which honours every
#: option), the compiled pass that reads a plain TREC run and its judgments (``compiled``: on
#: what it does not take, the local reader reads the input instead, with the same numbers)
#: and Apache Spark (``spark``: it refuses what it does not take).
Engine = Literal["local", "compiled", "spark"]
ENGINES: tuple[str, ...] = ("local", "compiled", "spark")

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
class Limit:
    """An engine that honours only some values of an option, so that it never ignores one.

    Attributes
    ----------
    engine
        ``"compiled"`` or ``"spark"`` (:data:`ENGINES`; the local engine honours every value).
    takes
        ``takes(value)`` -> whether the engine honours the (checked) value; it must take the
        option's default.
    refusal
        What a refusal says after naming the options and their flags, ``{value}`` standing
        for the value refused (``"are for the local engine; Spark finds ..."``); ``""``: that
        they are for the local engine. Options refused for one reason share one
        :class:`Limit`, and a refusal names them together.
    """

    engine: Engine
    takes: Callable[[Any], bool]
    refusal: str = ""


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
    changes_numbers
        Whether its value can change a result's numbers: a saved evaluation must record its
        setting, and two evaluations are comparable (``gate``) only when their settings of
        it agree. Needs a ``setting``.
    words
        ``words(value)`` -> how a setting of it reads in a message (``"with -M 10"``);
        ``None``: ``"with --flag value"`` (:func:`setting_words`).
    limits
        The engines that honour only some of its values (:class:`Limit`); an engine not
        named honours every value.
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
    changes_numbers: bool = False
    words: Callable[[Any], str] | None = None
    limits: tuple[Limit, ...] = ()


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
        if o.changes_numbers and o.setting is None:
            raise ValueError(f"{o.name}: an option that changes numbers needs its setting")
        for limit in o.limits:
            if limit.engine not in ENGINES[1:]:
                raise ValueError(f"{o.name}: no engine {limit.engine!r} to limit")
            if not limit.takes(o.default):
                raise ValueError(f"{o.name}: the {limit.engine} engine must take its default")


def _docstring(summary: str, table: tuple[Option, ...], notes: str) -> str:
    params = "\n".join(
        f"{o.name}\n{textwrap.indent(textwrap.fill(o.doc, 88), '    ')}" for o in table
    )
    text = f"{summary}\n\nParameters\n----------\n{params}\n"
    if notes:
        text += f"\nNotes\n-----\n{notes}\n"
    return textwrap.indent(text, "    ").lstrip()


class _TableDoc:
    """A class's docstring made from its table when first read (``help``, ``__doc__``), not
    on import: wrapping every option's documentation costs more than the rest of the class."""

    def __init__(self, summary: str, table: tuple[Option, ...], notes: str) -> None:
        self._args: tuple[str, tuple[Option, ...], str] | None = (summary, table, notes)
        self._text = ""

    def __get__(self, instance: object, owner: type | None = None) -> str:
        if self._args is not None:
            self._text, self._args = _docstring(*self._args), None
        return self._text


def options_class(
    table: tuple[Option, ...], *, summary: str, notes: str = ""
) -> Callable[[type[T]], type[T]]:
    """A class decorator, written under ``@dataclass(frozen=True)`` over a class whose fields
    are written out: it checks them against the table (:func:`check_fields`, on import),
    makes the class's docstring (its Parameters from the table's ``doc``) and sets the
    table as the class's ``TABLE``. The docstring is made when first read; written over
    ``@dataclass`` instead, with a docstring of its own in the class, not even the
    dataclass reads it on import (:class:`EvalOptions` is, being on every command's path).

    The class's ``__post_init__`` calls :func:`validate`, which runs each option's check
    (:class:`DeclaredOptions`'s does).
    """
    check_table(table)

    def apply(cls: type[T]) -> type[T]:
        check_fields(cls, table)
        cls.TABLE = table  # type: ignore[attr-defined]  # set on the class the decorator is given
        cls.__doc__ = _TableDoc(summary, table, notes)  # type: ignore[assignment]  # read as text
        return cls

    return apply


def _written_fields(cls: type) -> list[tuple[str, str, Any]]:
    """The fields written in ``cls`` and its bases, as a dataclass orders them (a base's
    first; a field written again keeps its place): (name, annotation as written, default)."""
    annotations: dict[str, str] = {}
    for klass in reversed(cls.__mro__):
        for name, annotation in inspect.get_annotations(klass).items():
            text = annotation if isinstance(annotation, str) else getattr(
                annotation, "__name__", repr(annotation)
            )
            if not text.startswith(("ClassVar", "typing.ClassVar")):
                annotations[name] = text
    missing = object()
    return [(name, text, getattr(cls, name, missing)) for name, text in annotations.items()]


def check_fields(cls: type, table: tuple[Option, ...]) -> None:
    """Refuse an options class whose written fields are not the table's options: the same
    names in the same order, each annotated as the option's ``annotation`` (an alias as
    ``InitVar[...]``) with the option's default.

    Raises
    ------
    TypeError
        Naming the class and the first field that differs, on import.
    """
    written = _written_fields(cls)
    declared = [
        (o.name, o.annotation if o.stored else f"InitVar[{o.annotation}]", o.default)
        for o in table
    ]
    if [w[0] for w in written] != [d[0] for d in declared]:
        raise TypeError(
            f"{cls.__name__}'s fields ({', '.join(w[0] for w in written)}) are not its "
            f"table's options, in order ({', '.join(d[0] for d in declared)})"
        )
    for (name, annotation, default), (_, wanted, wanted_default) in zip(
        written, declared, strict=True
    ):
        if annotation != wanted:
            raise TypeError(f"{cls.__name__}.{name} is annotated {annotation}; its option "
                            f"says {wanted}")  # fmt: skip
        if type(default) is not type(wanted_default) or default != wanted_default:
            raise TypeError(f"{cls.__name__}.{name} defaults to {default!r}; its option says "
                            f"{wanted_default!r}")  # fmt: skip


def validate(obj: Any, table: tuple[Option, ...]) -> None:
    """Run every stored option's check on a frozen instance, in table order, setting the
    normalised value in place (``np.int64(2)`` becomes ``2``)."""
    for o in table:
        if o.stored:
            object.__setattr__(obj, o.name, o.check(o.name, getattr(obj, o.name)))


def check_values(typed: type, table: tuple[Option, ...]) -> None:
    """Refuse a ``TypedDict`` of keyword options whose keys (its own and its bases') are not
    the table's options, each annotated as the option's ``given`` type (or its
    ``annotation``). The API functions take them as ``**option_values: Unpack[...]``, so a
    type checker sees each option's name and type; this keeps the written class and the table
    one declaration. (Keys have no order: a function that takes one option as a parameter of
    its own takes a base class without it, such as ``queries`` for ``explain_queries``.)

    Raises
    ------
    TypeError
        Naming the class and a key that differs, on import.
    """
    written = {
        name: getattr(annotation, "__forward_arg__", annotation)
        for klass in reversed(typed.__mro__)
        for name, annotation in inspect.get_annotations(klass).items()
    }
    declared = {o.name: o.given or o.annotation for o in table}
    if set(written) != set(declared):
        raise TypeError(
            f"{typed.__name__}'s keys ({', '.join(sorted(written))}) are not its table's "
            f"options ({', '.join(sorted(declared))})"
        )
    for name, wanted in declared.items():
        annotation = written[name]
        if annotation != wanted:
            raise TypeError(f"{typed.__name__}[{name!r}] is annotated {annotation}; its option "
                            f"says {wanted}")  # fmt: skip
    if getattr(typed, "__required_keys__", None):
        raise TypeError(f"{typed.__name__} must be total=False: every option has a default")


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
        import difflib  # only to suggest a name

        close = difflib.get_close_matches(unknown[0], known, n=1)
        hint = f"; did you mean {close[0]!r}?" if close else ""
        raise UsageError(
            f"unknown option {unknown[0]!r}{hint} The options are {', '.join(known)}."
        )
    if base is None:
        return cls(**values)
    return replace(base, **values) if values else base  # type: ignore[type-var]  # T is an options dataclass


def number_settings(table: tuple[Option, ...]) -> tuple[str, ...]:
    """The settings that change a result's numbers, in table order: those a saved
    evaluation must record, and on which two evaluations must agree to be compared."""
    return tuple(o.name for o in table if o.changes_numbers)


def setting_words(option: Option, value: Any) -> str:
    """How a setting of ``option`` reads in a message: its ``words``, else ``"with
    --flag value"`` (``"with name=value"`` for an option without a flag)."""
    if option.words is not None:
        return option.words(value)
    if option.flag is not None:
        return f"with {option.flag.label} {value}"
    return f"with {option.name}={value!r}"


def unhonoured(obj: Any, table: tuple[Option, ...], engine: str) -> tuple[Option, ...]:
    """The options of ``obj`` (an options instance of ``table``) whose values ``engine``
    does not honour (:class:`Limit`), in table order."""
    return tuple(
        o
        for o in table
        if o.stored
        and any(lim.engine == engine and not lim.takes(getattr(obj, o.name)) for lim in o.limits)
    )


def refuse_unhonoured(obj: Any, table: tuple[Option, ...], engine: str) -> None:
    """Refuse the options of ``obj`` that ``engine`` does not honour, so that none is
    ignored: a :class:`UsageError` naming the first refused option with those refused for
    the same reason (their shared :class:`Limit`), their flags, and the limit's ``refusal``.
    """
    refused = unhonoured(obj, table, engine)
    if not refused:
        return
    first = refused[0]
    limit = next(lim for lim in first.limits if lim.engine == engine)
    named = [o for o in table if limit in o.limits]
    names = " and ".join(o.name for o in named)
    flags = ", ".join(o.flag.label for o in named if o.flag is not None)
    flags = f" ({flags})" if flags else ""
    verb = "are" if len(named) > 1 else "is"
    said = limit.refusal.format(value=repr(getattr(obj, first.name)))
    raise UsageError(f"{names}{flags} {said or verb + ' for the local engine'}")


def flags_not_taken(table: tuple[Option, ...], engine: str) -> tuple[str, ...]:
    """The command-line words after which ``engine`` may not honour an option: each value
    of a choice flag it does not take (``--order=rank``), and every spelling of another
    flag whose value it may not take (``--queries``)."""
    words: list[str] = []
    for o in table:
        limits = [lim for lim in o.limits if lim.engine == engine]
        if o.flag is None or not limits:
            continue
        flag = o.flag
        if flag.kind == "choice":
            convert = flag.convert or (lambda value: value)
            refused = [
                c for c in flag.choices
                if not all(lim.takes(convert(c)) for lim in limits)
            ]  # fmt: skip
            words += [f"{d}={c}" for d in flag.decls for c in refused]
        else:
            words += list(flag.decls)
    return tuple(words)


class DeclaredOptions:
    """What every options class made by :func:`options_class` does with its table
    (``TABLE``): check each value when made, build from keywords, show its settings.

    A subclass is written ``@dataclass(frozen=True)`` over ``@options_class(TABLE, ...)``,
    its fields written out as the table declares them.
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
