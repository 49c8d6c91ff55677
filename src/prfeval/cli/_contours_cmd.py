"""``prfeval contours``: draw F_beta contours over the precision-recall square.

Writes the figure of :func:`prfeval._plots.contours.contour_figure` to a PNG or SVG file and prints
each marked system's F_beta (and, with ``--means``, its arithmetic and geometric means).
"""

from __future__ import annotations

import re

import click

from prfeval._core.checks import beta as check_beta
from prfeval._core.counts import f_from_pr
from prfeval._core.errors import UsageError
from prfeval._core.means import arithmetic_mean, geometric_mean
from prfeval.cli._means_cmd import parse_pair
from prfeval.cli._options import files

__all__ = ["command", "parse_betas"]


def parse_betas(values: tuple[str, ...]) -> list[float]:
    """Every beta in ``values``, each of which may hold several separated by spaces or commas.

    ``("0.5 1", "2")`` gives ``[0.5, 1.0, 2.0]``; repeats are dropped, the order kept; no
    values give ``[1.0]``. Raises :class:`UsageError` for anything that is not a positive
    finite number.
    """
    betas: list[float] = []
    for value in values:
        for token in re.split(r"[\s,]+", value.strip()):
            if not token:
                continue
            try:
                beta = float(token)
            except ValueError:
                raise UsageError(f"bad --beta {token!r}: expected a number > 0") from None
            try:
                beta = check_beta(beta, positive=True)
            except UsageError as error:
                raise UsageError(f"bad --beta {token!r}: {error}") from None
            if beta not in betas:
                betas.append(beta)
    return betas or [1.0]


def _beta_name(beta: float) -> str:
    return f"F{beta:g}"


@click.command(name="contours")
@click.argument("more_betas", nargs=-1, metavar="")
@click.option(
    "-b",
    "--beta",
    "beta_values",
    multiple=True,
    metavar="BETA",
    help="F weight, one panel each: --beta 0.5 1 2 (or repeat --beta). [default: 1]",
)
@click.option(
    "--means",
    is_flag=True,
    help="Also draw the arithmetic and geometric means' contours, to compare them with F's.",
)
@click.option(
    "-p",
    "--point",
    "point_values",
    multiple=True,
    metavar="NAME=P,R",
    help="A system to mark, e.g. --point 'System A=0.48,0.80'; repeatable.",
)
@click.option(
    "--plot",
    "plot_path",
    default="contours.png",
    show_default=True,
    metavar="FILE",
    help="Where to write the figure; .png or .svg.",
)
@files(outputs=("plot_path",))
def command(
    more_betas: tuple[str, ...],
    beta_values: tuple[str, ...],
    means: bool,
    point_values: tuple[str, ...],
    plot_path: str,
) -> None:
    """Contours of F_beta over the precision-recall square, with systems as points.

    \b
    Example, two systems under a precision- and a recall-weighted F:
      prfeval contours --beta 0.5 2 --point A=0.48,0.80 --point B=0.75,0.40
    """
    # `--beta 0.5 1 2`: click gives --beta its first value; the rest arrive as arguments.
    if more_betas and not beta_values:
        raise UsageError(f"unexpected argument {more_betas[0]!r}; betas follow --beta")
    betas = parse_betas(beta_values + more_betas)
    points: dict[str, tuple[float, float]] = {}
    for text in point_values:
        name, p, r = parse_pair(text)
        key = name if name is not None else text
        if key in points:
            raise UsageError(f"--point {key!r} is given twice")
        points[key] = (p, r)

    # Imported here: matplotlib is an optional extra and slow to import.
    from prfeval._plots.contours import contour_figure
    from prfeval._plots.figures import check_plot_file, save_figure

    check_plot_file(plot_path)  # a bad extension, or no matplotlib, fails before drawing
    fig = contour_figure(betas, means=means, points=points)
    written = save_figure(fig, plot_path, close=True)
    panels = (["arithmetic", "geometric"] if means else []) + [_beta_name(b) for b in betas]
    noun = "panel" if len(panels) == 1 else "panels"
    click.echo(f"wrote {written}: {len(panels)} {noun}, {', '.join(panels)}")

    width = max((len(name) for name in points), default=0)
    for name, (p, r) in points.items():
        fields = [f"P={p:.3f}", f"R={r:.3f}"]
        if means:
            fields.append(f"arithmetic={float(arithmetic_mean(p, r)):.3f}")
            fields.append(f"geometric={float(geometric_mean(p, r)):.3f}")
        fields += [f"{_beta_name(b)}={float(f_from_pr(p, r, b)):.3f}" for b in betas]
        click.echo(f"{name:<{width}}  " + "  ".join(fields))
