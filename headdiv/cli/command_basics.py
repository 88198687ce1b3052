"""What every `headdiv` subcommand shares: exit statuses, defaults, input errors, JSON in and out,
progress lines, and the small argument types (pure helpers, tested directly)."""

from __future__ import annotations

import argparse
import errno
import json
import socket
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, TextIO
from urllib.parse import urlsplit, urlunsplit

from headdiv.schemas.fields import error_lines

if TYPE_CHECKING:
    from pydantic import BaseModel, ValidationError

EXIT_OK = 0
EXIT_FAILED = 1
EXIT_USAGE = 2
EXIT_INTERRUPTED = 130

DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 8050
DEFAULT_DASHBOARD_PORT = 8051


Handler = Callable[[argparse.Namespace, TextIO, TextIO], int]
"""What a subcommand runs: (arguments, stdout, stderr) -> exit status."""


class InputError(Exception):
    """Input the user must fix: each entry of `problems` is one `<field>: <reason>` line."""

    def __init__(self, problems: Sequence[str]) -> None:
        super().__init__("; ".join(problems))
        self.problems = list(problems)


def bounded_int(name: str, low: int, high: int) -> Callable[[str], int]:
    """An argparse type for a whole number in low..high, whose errors name the option."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{name} must be a whole number, got {text!r}") from None
        if not low <= value <= high:
            raise argparse.ArgumentTypeError(f"{name} must lie in {low}..{high}, got {value}")
        return value

    return parse


port_number = bounded_int("port", 1, 65535)
nice_increment = bounded_int("nice", 0, 19)
worker_count = bounded_int("workers", 1, 64)


def browser_url(host: str, port: int) -> str:
    """The address to type in a browser: a wildcard bind address is reached through the loopback."""
    shown = {"0.0.0.0": "127.0.0.1", "::": "[::1]", "": "127.0.0.1"}.get(host, host)
    if ":" in shown and not shown.startswith("["):
        shown = f"[{shown}]"
    return f"http://{shown}:{port}/"


def listen(host: str, port: int, err: TextIO, hint: str) -> socket.socket | None:
    """A socket bound to (host, port), or None after one line on `err` saying why not and what to do.

    Bound here rather than by uvicorn, so a busy port is one readable line (and a non-zero status)
    instead of a logged `[Errno 98]` after the URL was already printed as if all were well."""
    try:
        family, kind, proto, _, address = socket.getaddrinfo(host or None, port, type=socket.SOCK_STREAM)[0]
        sock = socket.socket(family, kind, proto)
    except OSError as exc:
        print(f"headdiv: cannot listen on {host}:{port}: {exc.strerror or exc}", file=err, flush=True)
        return None
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as uvicorn does: restarts reuse the port
        sock.bind(address)
        sock.listen(2048)
    except OSError as exc:
        sock.close()
        if exc.errno == errno.EADDRINUSE:
            print(f"headdiv: port {port} on {host} is already in use; {hint}", file=err, flush=True)
        else:
            print(f"headdiv: cannot listen on {host}:{port}: {exc.strerror or exc}", file=err, flush=True)
        return None
    sock.set_inheritable(True)
    return sock


def redact_url(url: str) -> str:
    """A connection URL fit to print: the password, if any, is replaced by `***`."""
    parts = urlsplit(url)
    if parts.password is None:
        return url
    netloc = parts.netloc.rsplit("@", 1)[1]
    user = parts.username or ""
    return urlunsplit(parts._replace(netloc=f"{user}:***@{netloc}"))


def read_json_argument(argument: str, stdin: TextIO) -> Any:
    """Parse the request: a JSON literal, `@path` for a file, or `-` for standard input."""
    if argument == "-":
        text, source = stdin.read(), "stdin"
    elif argument.startswith("@"):
        path = argument[1:]
        try:
            with open(path, encoding="utf-8") as handle:
                text = handle.read()
        except (OSError, UnicodeDecodeError) as exc:
            reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
            raise InputError([f"input: cannot read {path!r}: {reason}"]) from None
        source = path
    else:
        text, source = argument, "argument"
    if not text.strip():
        raise InputError([f"input: the {source} is empty; expected a JSON object"])
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise InputError(
            [f"input: invalid JSON in the {source} at line {exc.lineno} column {exc.colno}: {exc.msg}"]
        ) from None
    except RecursionError:
        raise InputError([f"input: the JSON in the {source} is nested too deeply"]) from None


def settings_problems(exc: ValidationError, prefix: str = "HEADDIV_") -> list[str]:
    """Errors in settings read from the environment, each named by its environment variable."""
    lines = []
    for error in exc.errors(include_url=False):
        loc = [str(part) for part in error.get("loc", ())]
        name = loc[0] if loc else "settings"
        variable = name if name.isupper() else f"{prefix}{name.upper()}"
        lines.append(f"{variable}: {error.get('msg', 'invalid')}")
    return lines


def load_engine_settings() -> None:
    """Read the engine's settings now, so a bad HEADDIV_ variable is reported as such, not as a field."""
    from pydantic import ValidationError

    from headdiv.schemas.engine_settings import get_engine_settings

    try:
        get_engine_settings()
    except ValidationError as exc:
        raise InputError(settings_problems(exc)) from None


def validate(model: type[BaseModel], data: Any) -> Any:
    """`model.model_validate(data)`, with every problem turned into an `InputError`."""
    from pydantic import ValidationError

    if not isinstance(data, dict):
        raise InputError([f"input: expected a JSON object, got {type(data).__name__}"])
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        raise InputError(error_lines(exc.errors(include_url=False))) from None
    except (ValueError, RecursionError) as exc:
        raise InputError([f"input: {exc}"]) from None


class ProgressPrinter:
    """Prints `label: NN%` to stderr each time the progress has moved by at least `step` percent."""

    def __init__(self, label: str, stream: TextIO, step: int = 5) -> None:
        self.label = label
        self.stream = stream
        self.step = step
        self.last = -step

    def __call__(self, fraction: float) -> None:
        percent = int(max(0.0, min(1.0, float(fraction))) * 100)
        if percent - self.last >= self.step or (percent == 100 and self.last != 100):
            self.last = percent
            print(f"{self.label}: {percent}%", file=self.stream, flush=True)
