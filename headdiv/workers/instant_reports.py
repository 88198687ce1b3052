"""The one road from the server (API, CLI) to the engine for what is not a job: reports computed at once.

Jobs go through the job protocol (`headdiv.jobs`); everything else the server asks of the
compute side is here: HDI of given head matrices, the closed-form theory curves, the foundations
lessons, trained models' head diversity, and the engine's warm-up, kept kernels, speed and device. Each function
imports the engine where it runs, so building the API (and `headdiv --help`) never loads torch.
The errors they raise on purpose are `headdiv.schemas.errors`'.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from headdiv.schemas.lesson_queries import LessonQuery
from headdiv.schemas.report_queries import TheoryQuery
from headdiv.schemas.results.report_results import BuiltinModel, HdiReport, LocalModel, ModelHeadsReport, TheoryReport
from headdiv.schemas.results.result_parts import ResultModel

if TYPE_CHECKING:
    import numpy as np
    from numpy.typing import NDArray

    from headdiv.workers.models.checkpoint import CheckpointSource


def hdi(
    matrices: Sequence[NDArray[np.float64]],
    *,
    max_angle_pairs: int | None = None,
    max_angles: int | None = None,
    should_stop: Callable[[], bool] | None = None,
) -> HdiReport:
    """HDI, overlap matrix and principal angles of any head matrices (docs/model.md section 6)."""
    from headdiv.workers.engine.diversity import hdi_report

    return hdi_report(matrices, max_angle_pairs=max_angle_pairs, max_angles=max_angles, should_stop=should_stop)


def theory(query: TheoryQuery) -> TheoryReport:
    """The architecture objective at every split of the budget and the optimal-split curves (section 7)."""
    from headdiv.workers.engine.theory import architecture_theory

    return architecture_theory(query)


def lesson(query: LessonQuery) -> ResultModel:
    """The answer of the foundations lesson whose query model `query` is (its `Lesson.answer` model)."""
    from headdiv.workers.engine.foundations import lesson_runner

    return lesson_runner(query)(query)


def model_heads(
    source: CheckpointSource,
    *,
    num_heads: int | None = None,
    num_kv_heads: int | None = None,
    seed: int = 0,
    model: str | None = None,
    should_stop: Callable[[], bool] | None = None,
) -> ModelHeadsReport:
    """Per-layer key and query HDI of a safetensors file, with the random-subspace baseline."""
    from headdiv.workers.models.model_hdi import model_hdi

    return model_hdi(
        source, num_heads=num_heads, num_kv_heads=num_kv_heads, seed=seed, model=model, should_stop=should_stop
    )


def builtin_heads(name: str, seed: int = 0) -> ModelHeadsReport:
    """`model_heads` of an installed built-in model (KeyError: unknown; LookupError: not installed)."""
    from headdiv.workers.models.builtin import builtin_hdi

    return builtin_hdi(name, seed)


def builtin_models() -> list[BuiltinModel]:
    """Every known built-in model, whether it is installed, and its shape when it is."""
    from headdiv.workers.models.builtin import list_builtins

    return list_builtins()


def warm_up(pause: Callable[[], object] | None = None) -> bool:
    """Load every module a job imports lazily and compile the NW step ahead of the first request (or load the
    kernels an earlier start kept); False when compilation is off or fails. A first import holds the
    interpreter for a second or more (scipy, for the surfaces' fits): paid here, never by a job while another
    runs beside it. `pause()` comes before the imports and before each kernel's compilation: a server waits
    there for a quiet moment."""
    if pause is not None:
        pause()
    import headdiv.workers.engine.dispatch
    import headdiv.workers.engine.multicell
    import headdiv.workers.engine.simulation  # noqa: F401
    from headdiv.workers.engine.nw import warm_up as compile_step

    return compile_step(pause=pause)


def keep_kernels(stop: threading.Event | None = None) -> bool:
    """Build the compiled NW kernels for the next start in a process of its own at the lowest priority, and
    wait for it (stopped when `stop` is set); True when they are kept (at once when they were already)."""
    from headdiv.workers.engine.kernel_build import build_elsewhere

    return build_elsewhere(stop)


def kept_speed(device: str | None = None) -> float | None:
    """The engine speed an earlier start of this version measured on this machine, or None (a disk read)."""
    from headdiv.workers.engine.speed import kept_speed as kept

    return kept(device)


def engine_speed(device: str | None = None) -> float:
    """This machine's engine speed, in work units per second (admission control's yardstick): kept from an
    earlier start of this version, else measured."""
    from headdiv.workers.engine.speed import engine_speed as speed

    return speed(device)


def device_name() -> str:
    """The device the engine resolves to here ('cpu', 'cuda:0'); raises EngineError when none can be used."""
    from headdiv.workers.engine.device import resolve_device

    return str(resolve_device(None))


def local_models(models_dir: Path | None) -> list[Any]:
    """The models on this machine's disk (`models_dir` and the Hugging Face cache): where each is and its id."""
    from headdiv.workers.models import local_models as found

    return found.find_all(models_dir, found.hf_cache_dir())


def describe_local_model(model: Any) -> LocalModel:
    """A listed model's size and the attention layout its headers show (or why none, in one line)."""
    from headdiv.workers.models.local_models import describe

    return describe(model)


def local_model_key(model: Any) -> str:
    """What identifies a listed model's bytes (its cached revision, or its files' sha256)."""
    from headdiv.workers.models.local_models import content_key

    return content_key(model)
