"""Engine settings, read from the environment (prefix ``HEADDIV_``) by pydantic-settings.

They live beside the engine rather than in `headdiv/server/` because the CLI, the queue worker and the
schema's work-budget rule all need them without importing the web stack.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import Literal

from pydantic import Field
from pydantic_settings import BaseSettings, SettingsConfigDict


class EngineSettings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="HEADDIV_", extra="ignore")

    device: Literal["auto", "cpu", "cuda"] = "auto"
    dtype: Literal["float32", "float64"] = "float32"
    compile: Literal["auto", "on", "off"] = Field(
        "auto",
        description="torch.compile the NW step: 'auto' compiles in the background and uses the "
        "eager path until ready; 'on' compiles before the first use; 'off' never compiles.",
    )
    max_work: float = Field(
        4e10,
        gt=0,
        description="Budget on the work units of one Monte Carlo run (docs/engine.md, 'What a run costs').",
    )
    max_job_work: float = Field(
        4e11, gt=0, description="Budget on the summed work of all runs in one surface/sweep/architecture."
    )
    max_estimates: int = Field(
        1 << 23,
        gt=0,
        description="Cap on replicates*H*queries of one batch of cells: the estimates kept for the exact "
        "decomposition.",
    )
    threads: int | None = Field(
        None,
        ge=1,
        le=256,
        description="Compute threads of the engine (torch's intra-op threads); None: torch's default.",
    )
    first_batch_work: float = Field(
        4e8,
        gt=0,
        description="Work units of the first batch of a multi-cell job (small, so a first result comes soon).",
    )
    batch_work: float = Field(2e9, gt=0, description="Work units of the later batches of cells simulated together.")
    cuda_batch_work: float = Field(
        4e10, gt=0, description="batch_work on a GPU: many cells per NW call keep the chip busy."
    )
    chunk_bytes: int = Field(32 << 20, gt=0, description="Memory bound for one chunk of training data and keys.")
    score_bytes: int = Field(
        8 << 20, gt=0, description="Size of one block of attention scores (8 MiB measured best here)."
    )
    cuda_chunk_bytes: int = Field(
        1 << 30, gt=0, description="chunk_bytes on a GPU (at most 1/16 of its free memory at the run's start)."
    )
    kept_draws_bytes: int = Field(
        64 << 20,
        ge=0,
        description="Training sets kept in memory for the next run of the same seed (a slider's next value, "
        "a surface's next batch); 0 keeps none.",
    )
    cuda_kept_draws_bytes: int = Field(
        2 << 30,
        ge=0,
        description="kept_draws_bytes on a GPU, where the sets stay on the card (at most 1/16 of its free memory).",
    )
    cuda_score_bytes: int = Field(
        256 << 20,
        gt=0,
        description="score_bytes on a GPU (at most 1/16 of its free memory): a block must fill the chip.",
    )
    cache_dir: str = Field(
        "",
        description="Where work that is the same at every start is kept, per installed version: the shared "
        "answers' compressed encodings, the engine's speed and compiled kernels, the warm start's results ('': "
        "$XDG_CACHE_HOME/headdiv, else ~/.cache/headdiv; 'off': nothing is kept).",
    )


@lru_cache(maxsize=1)
def get_engine_settings() -> EngineSettings:
    return EngineSettings()


class DoorSettings(BaseSettings):
    """Settings that both the API and the dashboard read, declared once here (the server's settings include
    them): the largest model file (the API answers 413 beyond it; the page refuses it before a byte leaves
    the browser) and the address students' phones reach the server at."""

    model_config = SettingsConfigDict(env_prefix="HEADDIV_", extra="ignore")

    max_upload_bytes: int = Field(256 << 20, gt=0, description="Largest upload to POST /api/v1/models/hdi.")
    public_url: str | None = Field(
        None,
        pattern=r"^https?://[^/\s]+/?$",
        description="The address students' phones reach this server at (e.g. http://192.168.1.20:8050): class "
        "poll links and QR codes use it. Unset: the address the lecturer's page was opened with.",
    )
    models_dir: Path | None = Field(
        None,
        description="A folder of models this server offers (model folders or .safetensors files), listed with "
        "the local Hugging Face cache's models by GET /api/v1/models/local and measured on demand; the Python "
        "API lists it too.",
    )
    figure_cache_bytes: int = Field(
        48 << 20,
        gt=0,
        description="Bound of the dashboard's one memory of drawn answers (the live charts and the pure "
        "callbacks' answers together).",
    )
    debug: bool = Field(False, description="The command line shows an unexpected error's traceback, not one line.")
