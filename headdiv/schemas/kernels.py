"""NW kernels (docs/model.md section 1), one registered class per kernel.

Every kernel reaches the engine's NW step in one form, logits = scale * q.k + bias(k): softmax
attention has no bias; the Gaussian kernel's -|q - k|^2 / (2 h^2) expands to q.k / h^2 - |k|^2 / (2 h^2)
plus a per-query constant that the softmax cancels (`distance = True`).
"""

from __future__ import annotations

import math
from typing import Annotated, ClassVar

from pydantic import Field

from headdiv.i18n import N_
from headdiv.schemas.bandwidths import bandwidth
from headdiv.schemas.fields import Float, Sweep
from headdiv.schemas.registry import Choice, Registry
from headdiv.schemas.scenario_fields import ScenarioFields


class Kernel(Choice):
    """How a head weighs the keys around a query."""

    implements = ("logit_scale",)
    distance: ClassVar[bool] = False
    """True: logits are a scaled -|q - k|^2 (keys and queries are centred, and the -|k|^2 term added)."""

    def logit_scale(self, s: ScenarioFields, d: int) -> float:
        """What multiplies q.k for heads of dimension d."""
        raise NotImplementedError


KERNELS: Registry[Kernel] = Registry("kernel", Kernel)


@KERNELS.register("gaussian", N_("Gaussian"))
class Gaussian(Kernel):
    """exp(-|q - k|² / 2h²): a local kernel, with the bandwidth rule's h."""

    distance = True

    def logit_scale(self, s: ScenarioFields, d: int) -> float:
        return 1.0 / bandwidth(s, d) ** 2


@KERNELS.register("softmax", N_("Transformer softmax"))
class Softmax(Kernel):
    """exp(q·k / (T √d)): scaled dot-product attention, a non-local kernel."""

    temperature: Annotated[Float, Sweep((0.25, 0.5, 1, 2, 4))] = Field(
        1.0,
        ge=1e-2,
        le=1e3,
        title=N_("temperature (softmax)"),
        description=N_("Softmax temperature (kernel 'softmax')."),
    )

    def logit_scale(self, s: ScenarioFields, d: int) -> float:
        return 1.0 / (self.temperature * math.sqrt(d))
