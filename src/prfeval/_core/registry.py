"""The registry of measures: the declarations, and how measure names are parsed.

A :class:`Registry` holds the declarations (:class:`~prfeval._core.measure_def.MeasureDef`)
and answers everything that needs them: the parser (:meth:`Registry.parse`), suggestions for
misspelt names, ``prfeval measures`` and the docs. The entries themselves live in
:mod:`prfeval._measures`.

Names parse as ``Name(param=value, ...)@k``, as ir_measures writes them (``P@10``,
``P(rel=2)@10``, ``SetF(beta=2)``, ``IPrec@0.5``). trec_eval's spellings (``P.10``, ``P_10``,
``set_F.x``) are read by the registry's :class:`~prfeval._core.trec_names.TrecNames`, built
from the table of trec_eval's names it is given, keyed by canonical measure name.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from prfeval._core.checks import MAX_BETA
from prfeval._core.errors import MeasureError
from prfeval._core.measure_def import Measure, MeasureDef, Param
from prfeval._core.measure_text import cutoff_value, level_value, split_names, split_params
from prfeval._core.trec_names import TrecName, TrecNames

__all__ = ["Registry"]

#: The least alpha of an F measure's alpha form: beta^2 = (1 - alpha) / alpha stays within
#: MAX_BETA^2 (the diversity measures take any alpha in [0, 1]).
ALPHA_FOR_F = 1 / (1 + MAX_BETA**2)


_OURS = re.compile(r"^(?P<name>[A-Za-z][\w-]*)(?:\((?P<params>[^()]*)\))?(?:@(?P<k>.+))?$")


class Registry:
    """The declared measures and their parameters, and everything that reads them.

    Parameters
    ----------
    definitions
        The entries, in the order ``prfeval measures`` lists them.
    params
        Every parameter an entry may name, by name.
    beta_from_alpha
        Turns the alpha of the F measure's alpha form into beta (validating it).
    trec_names
        trec_eval's names by canonical measure name, for the measures trec_eval has (see
        :class:`~prfeval._core.trec_names.TrecNames`); none by default.
    trec_unsupported, trec_unsupported_sets
        The measures of trec_eval 9.0.8's table, and its sets of measures, that no entry
        computes (preference judgments, ...): ``prfeval trec_eval`` knows the names, and
        refuses them as not supported rather than as misspelt.
    trec_cutoff_order
        The order trec_eval 9.0.8's ``qsort`` leaves cutoffs in, which :meth:`parse_trec`
        keeps with ``as_trec_eval`` (an emulation of C that lives with the measures, not in
        _core); by default, sorted.

    Attributes
    ----------
    trec_table
        trec_eval 9.0.8's measures that entries compute, in the order of its measure table
        (each :class:`~prfeval._core.trec_names.TrecName`'s ``place``), which is the order
        it prints them in.
    trec_sets
        trec_eval's sets of measures by name (``official``, ``set``, ``all_trec``), each in
        table order, from each :class:`~prfeval._core.trec_names.TrecName`'s ``sets``.
    trec_table_10, trec_sets_10
        The same for trec_eval 10.0: 9.0.8's and the names 10.0 added (``since=10``).
    """

    def __init__(
        self,
        definitions: Iterable[MeasureDef],
        params: Mapping[str, Param],
        beta_from_alpha: Callable[[float], float],
        *,
        trec_names: Mapping[str, Sequence[TrecName]] | None = None,
        trec_unsupported: Iterable[str] = (),
        trec_unsupported_sets: Iterable[str] = (),
        trec_cutoff_order: Callable[[Sequence[int]], list[int]] = sorted,
    ) -> None:
        self.definitions: dict[str, MeasureDef] = {}
        self.params = dict(params)
        self._beta_from_alpha = beta_from_alpha
        self._by_lower: dict[str, MeasureDef] = {}
        for d in definitions:
            if d.name in self.definitions:
                raise TypeError(f"measure {d.name} declared twice")
            unknown = set(d.params) - set(self.params)
            if unknown:
                raise TypeError(f"{d.name}: unknown parameters {sorted(unknown)}")
            self.definitions[d.name] = d
            for n in (d.name, *d.aliases):
                taken = self._by_lower.get(n.lower())
                if taken is not None and taken is not d:
                    raise TypeError(f"{d.name}: the name {n!r} is {taken.name}'s already")
                self._by_lower[n.lower()] = d
        #: trec_eval's names of these measures: its table, sets and spellings.
        self.trec = TrecNames(
            self.definitions.values(),
            trec_names or {},
            self.build,
            self.suggest,
            unsupported=trec_unsupported,
            unsupported_sets=trec_unsupported_sets,
            cutoff_order=trec_cutoff_order,
        )
        # Read as the registry's own by prfeval trec_eval, the docs and the tests.
        self.trec_unsupported = self.trec.unsupported
        self.trec_unsupported_sets = self.trec.unsupported_sets
        self.trec_table, self.trec_sets = self.trec.table, self.trec.sets
        self.trec_table_10, self.trec_sets_10 = self.trec.table_10, self.trec.sets_10

    def add(self, definition: MeasureDef, *, replaces: Callable[[MeasureDef], bool]) -> None:
        """Register ``definition`` after the registry was built (a user's own measure).

        A name or alias already taken is refused with a MeasureError, unless the measure
        holding it is one ``replaces`` accepts (the same user's measure, defined again).
        """
        d = definition
        unknown = set(d.params) - set(self.params)
        if unknown:
            raise MeasureError(f"{d.name}: unknown parameters {sorted(unknown)}")
        taken = [self._by_lower.get(n.lower()) for n in (d.name, *d.aliases)]
        trec = self.trec.named(d.name)
        taken += [trec[1]] if trec is not None else []
        for other in taken:
            if other is not None and not replaces(other):
                raise MeasureError(
                    f"measure {d.name!r}: the name is the built-in measure {other.name}'s; "
                    "choose another"
                )
        for other in taken:
            if other is not None:
                self.remove(other.name)
        self.definitions[d.name] = d
        for n in (d.name, *d.aliases):
            self._by_lower[n.lower()] = d

    def remove(self, name: str) -> None:
        """Forget the measure ``name`` and its aliases (a user's measure, redefined)."""
        d = self.definitions.pop(name)
        for n in (d.name, *d.aliases):
            if self._by_lower.get(n.lower()) is d:
                del self._by_lower[n.lower()]

    # ------------------------------------------------------------------ lookup and hints

    def lookup(self, name: str) -> MeasureDef:
        """The definition for a name or alias (case-insensitive), or a MeasureError."""
        found = self._by_lower.get(name.lower())
        if found is None:
            raise MeasureError(f"unknown measure {name!r}{self.suggest(name)}")
        return found

    def trec_name(self, name: str) -> tuple[TrecName, MeasureDef] | None:
        """trec_eval's measure called ``name`` exactly (``P``, ``ndcg_cut``), or ``None``."""
        return self.trec.named(name)

    def trec_entries(self) -> list[tuple[TrecName, MeasureDef]]:
        """trec_eval's names in :attr:`trec_table`, with their definitions, in table order."""
        return self.trec.entries()

    def names(self) -> list[str]:
        """Every name a user may type: canonical, aliases, trec_eval's and examples."""
        out: set[str] = set()
        for d in self.definitions.values():
            out.update((d.name, *d.aliases, d.example()))
        return sorted(out | self.trec.names())

    def suggest(self, name: str) -> str:
        """``; did you mean X or Y?`` for a misspelt name, then where the list is."""
        import difflib  # only to suggest a name

        candidates = self.names()
        close = difflib.get_close_matches(name, candidates, n=3, cutoff=0.5)
        if not close:
            lowered = {c.lower(): c for c in candidates}
            close = [
                lowered[c]
                for c in difflib.get_close_matches(name.lower(), lowered, n=3, cutoff=0.5)
            ]
        hint = f"; did you mean {' or '.join(close)}?" if close else ""
        return hint + " `prfeval measures` lists them all."

    # ------------------------------------------------------------------ parsing

    def parse(self, spec: str | Measure | Sequence[str | Measure]) -> list[Measure]:
        """Parse measure names; several may share one string, separated by spaces.

        Repeated measures are kept once, in the order first given.
        """
        if isinstance(spec, str | Measure):
            items: list[Any] = [spec]
        elif isinstance(spec, Iterable) and not isinstance(spec, bytes | Mapping):
            items = list(spec)
        else:
            raise MeasureError(
                "measures must be names such as 'P@10 R@100' (one string, separated by "
                f"spaces), a list of them, or None for the default set; got {spec!r}"
            )
        measures: list[Measure] = []
        for item in items:
            if isinstance(item, Measure):
                measures.append(item)
                continue
            if not isinstance(item, str):
                raise MeasureError(
                    f"a measure is a name such as 'P@10', got a {type(item).__name__}"
                )
            for token in split_names(item):
                measures.extend(self._parse_one(token))
        if not measures:
            raise MeasureError("no measures given")
        seen: set[str] = set()
        unique = []
        for m in measures:
            if str(m) not in seen:
                seen.add(str(m))
                unique.append(m)
        return unique

    def _parse_one(self, token: str) -> list[Measure]:
        try:
            return self._parse_token(token)
        except MeasureError:
            if "," in token:  # "P@10,R@100": two measures, separated the wrong way
                parts = [p for p in token.split(",") if p]
                try:
                    for part in parts:
                        self._parse_token(part)
                except MeasureError:
                    pass
                else:
                    raise MeasureError(
                        f"{token}: separate measures with spaces, not commas: "
                        f"-m \"{' '.join(parts)}\""
                    ) from None
            raise

    def _parse_token(self, token: str) -> list[Measure]:
        trec = self.trec.parse_spelling(token)
        if trec is not None:
            return trec
        match = _OURS.match(token)
        if not match:
            raise MeasureError(
                f"cannot parse measure {token!r}: expected Name, Name@k or "
                f"Name(param=value)@k{self.suggest(token)}"
            )
        definition = self.lookup(match["name"])
        params = self._parse_params(match["params"] or "", definition, token)
        at = match["k"]
        if definition.cutoff == "level":
            if at is None:
                what = "a recall level" if definition.level_max == 1.0 else "a level"
                raise MeasureError(
                    f"{token}: {definition.name} needs {what}, e.g. {definition.example()}"
                )
            level = level_value(at, token, definition.level_max)
            return [self.build(definition, token, params, level=level)]
        k = None if at is None else cutoff_value(at, token)
        return [self.build(definition, token, params, k=k)]

    def parse_trec(
        self, name: str, params: str | None, *, as_trec_eval: bool = False
    ) -> list[Measure]:
        """trec_eval's measure ``name`` with the parameter text after its first ``.``: see
        :meth:`TrecNames.parse <prfeval._core.trec_names.TrecNames.parse>`."""
        return self.trec.parse(name, params, as_trec_eval=as_trec_eval)

    def _parse_params(self, text: str, definition: MeasureDef, label: str) -> dict[str, object]:
        values: dict[str, object] = {}
        for item in filter(None, (part.strip() for part in split_params(text))):
            key, sep, raw = item.partition("=")
            key = key.strip()
            if not sep:
                raise MeasureError(f"{label}: expected name=value, got {item!r}")
            if key not in definition.params:
                takes = ", ".join(definition.params) or "no parameters"
                raise MeasureError(f"{label}: {definition.name} takes {takes}; got {key!r}")
            spec = self.params[key]
            try:
                value = spec.type(raw.strip())
            except (ValueError, TypeError):
                raise MeasureError(
                    f"{label}: {key} must be {spec.valid}, got {raw.strip()!r}"
                ) from None
            if not spec.check(value):
                raise MeasureError(f"{label}: {key} must be {spec.valid}, got {raw.strip()}")
            values[key] = value
        if "alpha" in values and "beta" in values:
            raise MeasureError(f"{label}: give beta or alpha, not both")
        return values

    def build(
        self,
        definition: MeasureDef,
        label: str,
        params: Mapping[str, object],
        *,
        k: int | None = None,
        level: float | None = None,
        printed: str | None = None,
    ) -> Measure:
        """A :class:`Measure` of ``definition`` with checked parameters and cutoff."""
        if definition.cutoff == "required" and k is None:
            raise MeasureError(
                f"{label}: {definition.name} needs a cutoff, e.g. {definition.example()}"
            )
        if definition.cutoff in ("none", "level") and k is not None:
            raise MeasureError(f"{label}: {definition.name} takes no cutoff")
        beta = 1.0
        if "alpha" in params and "beta" in definition.params:  # an F measure's alpha form
            alpha = float(params["alpha"])  # type: ignore[arg-type]  # the Param's check made it a number
            if alpha < ALPHA_FOR_F:  # alpha = 0 would weigh precision not at all
                raise MeasureError(
                    f"{label}: alpha must be a number in [{ALPHA_FOR_F:g}, 1], got {alpha:g}")
            beta = self._beta_from_alpha(alpha)
        elif "beta" in params:
            beta = float(params["beta"])  # type: ignore[arg-type]  # the Param's check made it a number
        rel = params.get("rel")
        # The other parameters, kept only where they differ from the default, so that
        # RBP(p=0.8) and RBP are one measure.
        others = []
        for key, value in sorted(params.items()):
            if key in ("rel", "beta", "alpha"):
                continue
            spec = self.params.get(key)
            if spec is not None and value == spec.default:
                continue
            others.append((key, value))
        rendered = tuple(
            (key, self.params[key].render(value)) for key, value in others if key in self.params
        )
        # Every other parameter of the definition, given or by its declared default.
        resolved = tuple(
            (key, params[key] if key in params else self.params[key].default)
            for key in definition.params
            if key not in ("rel", "beta", "alpha")
        )
        return Measure(
            definition,
            k=k,
            rel=None if rel is None else int(rel),  # type: ignore[call-overload]  # the Param's check made it a number
            beta=beta,
            label=label,
            explicit={key: v for key, v in params.items() if key in ("rel", "beta", "alpha")},
            recall_level=level,
            params=tuple(others),
            printed=printed,
            rendered=rendered,
            values=resolved,
        )
