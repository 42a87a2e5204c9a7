"""How the command reports: ``error:`` and ``warning:`` lines in the command line's
terms, and the exit codes (1 bad data or model files, 2 bad usage)."""

from __future__ import annotations

import functools

import click
from rich.console import Console
from rich.markup import escape

console = Console()
err_console = Console(stderr=True)

EXIT_DATA = 1
EXIT_USAGE = 2


class CLIError(click.ClickException):
    """An error shown as ``error: message`` with a chosen exit code."""

    def __init__(self, message: str, exit_code: int = EXIT_DATA):
        super().__init__(message)
        self.exit_code = exit_code

    def show(self, file=None):
        err_console.print(f"[bold red]error:[/] {escape(self.message)}", highlight=False,
                          soft_wrap=True)


def _one_line(exc: BaseException) -> str:
    from ..datasets._common import NONFINITE_HINT  # (error path only: keeps --help fast)
    from ..datasets.files import DataFileError

    text = str(exc)
    reader_error = exc
    while reader_error is not None and not isinstance(reader_error, DataFileError):
        reader_error = reader_error.__cause__  # (a stream re-raises it naming its source)
    if reader_error is not None and reader_error.hint == NONFINITE_HINT:
        # the readers' hint names a Python argument; the estimators refuse non-finite values
        text = text.replace(f"({NONFINITE_HINT})", "(the estimators take finite values only: "
                            "fix or drop that value)")
    return _in_cli_terms(text) or type(exc).__name__


#: hints of the readers that name a Python argument, and the command line's option for it
_CLI_SPELLING = {"label_column=None": "--label-column none",
                 "pass zero_based=True": "give --zero-based yes"}


def _in_cli_terms(text: str) -> str:
    """``text`` on one line, its hints spelled as the command line's options."""
    for python, option in _CLI_SPELLING.items():
        text = text.replace(python, option)
    return " ".join(text.split())


def _errors_as_one_line(func):
    """Bad data, files and values become ``CLIError`` (exit 1), never a traceback."""

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        try:
            return func(*args, **kwargs)
        except (click.ClickException, click.exceptions.Exit, click.Abort, BrokenPipeError):
            raise
        except (OSError, EOFError, ValueError, TypeError) as exc:
            raise CLIError(_one_line(exc)) from exc

    return wrapper




def _show_warning(message, category, filename, lineno, file=None, line=None):
    """Python warnings as one ``warning:`` line, with the command line's spelling of the
    readers' hints."""
    err_console.print(f"[bold yellow]warning:[/] {escape(_in_cli_terms(str(message)))}",
                      highlight=False, soft_wrap=True)

