"""The click group of every command but the trec_eval drop-in's fast route."""

from __future__ import annotations

import importlib

import click

from prfeval.cli._commands import COMMANDS
from prfeval.cli._process import PipeClosed, fail, guarded

__all__ = ["LazyGroup", "cli", "run"]


class LazyGroup(click.Group):
    """A click group whose subcommands are imported on first use."""

    def invoke(self, ctx: click.Context) -> object:
        try:
            return super().invoke(ctx)
        except BrokenPipeError:
            raise PipeClosed() from None

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(COMMANDS)

    def resolve_command(
        self, ctx: click.Context, args: list[str]
    ) -> tuple[str | None, click.Command | None, list[str]]:
        """As click's, but an unknown command gets the closest one suggested, as a misspelt
        measure does: ``prfeval evalute`` -> did you mean 'evaluate'?"""
        name = args[0] if args else None
        if name is not None and name not in COMMANDS and not name.startswith("-"):
            import difflib  # only to suggest a name

            close = difflib.get_close_matches(name, sorted(COMMANDS), n=1, cutoff=0.6)
            if not close:  # a prefix is a close match too: `prfeval cl` -> classify
                close = [c for c in sorted(COMMANDS) if c.startswith(name.lower())][:1]
            hint = f" Did you mean {close[0]!r}?" if close else ""
            raise click.UsageError(f"No such command {name!r}.{hint}", ctx)
        return super().resolve_command(ctx, args)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name not in COMMANDS:
            return None
        module = importlib.import_module(COMMANDS[cmd_name][0])
        return module.command

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        rows = [(name, COMMANDS[name][1]) for name in sorted(COMMANDS)]
        with formatter.section("Commands"):
            formatter.write_dl(rows)


def _show_version(ctx: click.Context, _param: click.Parameter, value: bool) -> None:
    """``prfeval --version``: the version, and whether the compiled pass is in use and why
    not, the one thing that changes how fast a large run is read."""
    if not value or ctx.resilient_parsing:
        return
    import prfeval
    from prfeval._io.plan import compiled_unavailable

    why_not = compiled_unavailable()
    click.echo(f"prfeval {prfeval.__version__}")
    click.echo("compiled pass: yes" if why_not is None else f"compiled pass: no ({why_not})")
    ctx.exit()


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.option("--version", is_flag=True, expose_value=False, is_eager=True,
              callback=_show_version, help="Show the version and whether the compiled pass "
              "is in use, and exit.")
def cli() -> None:
    """prfeval: precision, recall and the F measure, exact and labelled.

    Run `prfeval COMMAND --help` for a command's options.
    """


def run(argv: list[str] | None) -> None:
    """The CLI, ended by ``sys.exit`` with its exit code."""

    def body() -> None:
        cli.main(args=argv, prog_name="prfeval", standalone_mode=False)

    def usage(exc: click.UsageError) -> None:
        # One line, like every other user error; `--help` has the full usage.
        path = exc.ctx.command_path.removeprefix("prfeval").strip() if exc.ctx else ""
        where = f"{path}: " if path else ""
        command = f"prfeval {path}" if path else "prfeval"
        message = exc.format_message()
        if isinstance(exc, click.NoSuchOption) and exc.possibilities:  # no parentheses
            close = ", ".join(repr(p) for p in sorted(exc.possibilities))
            message = f"No such option: {exc.option_name}. Did you mean {close}?"
        fail(f"{where}{message} Run '{command} --help' for help.")

    def click_error(exc: click.ClickException) -> None:
        fail(exc.format_message(), exc.exit_code)

    guarded(
        body,
        (click.exceptions.Abort, lambda exc: fail("interrupted", 130)),
        (click.UsageError, usage),
        (click.ClickException, click_error),
    )
