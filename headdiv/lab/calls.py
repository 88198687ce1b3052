"""The Python calls, one per job kind and report: the same names as the command line's subcommands, the same
request models as the API's bodies (`headdiv.jobs.kinds.JOB_KINDS`, plus `hdi` and `theory`)."""

from __future__ import annotations

from dataclasses import dataclass

from pydantic import BaseModel, Field

from headdiv.jobs.kinds import JOB_KINDS
from headdiv.schemas import HDIRequest, TheoryQuery
from headdiv.schemas.fields import MAX_MODEL_HEADS, MAX_SEED, StrictModel
from headdiv.schemas.results.report_results import HdiReport, TheoryReport
from headdiv.schemas.results.result_parts import ResultModel


@dataclass(frozen=True)
class CallSpec:
    name: str
    """The Python name (`headdiv.simulate`), which is also the `headdiv` subcommand."""
    model: type[BaseModel]
    result: type[ResultModel]
    path: str
    """Its route under /api/v1."""
    method: str
    kind: str | None = None
    """The job kind, for a computation run as a job (None: an instant report)."""


CALLS: dict[str, CallSpec] = {
    **{k.command: CallSpec(k.command, k.request, k.result, k.path, "POST", k.name) for k in JOB_KINDS.values()},
    "hdi": CallSpec("hdi", HDIRequest, HdiReport, "/hdi", "POST"),
    "theory": CallSpec("theory", TheoryQuery, TheoryReport, "/theory/architecture", "GET"),
}
"""Python name -> what it validates, runs and returns (`heads`, which reads a model file, is apart)."""


class HeadsRequest(StrictModel):
    """A trained model's heads: a built-in model's name or the path of a `.safetensors` file."""

    model: str = Field(min_length=1, description="A built-in model's name, or a .safetensors file's path.")
    num_heads: int | None = Field(None, ge=1, le=MAX_MODEL_HEADS, description="Query heads per layer (else read).")
    num_kv_heads: int | None = Field(None, ge=1, le=MAX_MODEL_HEADS, description="Key/value heads (grouped queries).")
    seed: int = Field(0, ge=0, le=MAX_SEED, description="Seed of the random-subspace baseline.")


class CompareHeadsRequest(StrictModel):
    """Two trained models' heads, each named as `HeadsRequest.model` is, measured with one baseline seed."""

    model: str = Field(min_length=1, description="The first model (a built-in's name, a path, a server model's id).")
    other: str = Field(min_length=1, description="The model it is compared with, named alike.")
    seed: int = Field(0, ge=0, le=MAX_SEED, description="Seed of both random-subspace baselines.")
