"""Bandwidth rules of the Gaussian kernel (docs/model.md section 1), one registered class per rule."""

from __future__ import annotations

import math
from typing import Annotated

from pydantic import Field

from headdiv.i18n import N_
from headdiv.schemas.fields import Float, Sweep
from headdiv.schemas.registry import Choice, Registry
from headdiv.schemas.scenario_fields import ScenarioFields


class BandwidthRule(Choice):
    """How the Gaussian kernel's bandwidth h is chosen."""

    implements = ("h",)

    def h(self, s: ScenarioFields, d: int) -> float:
        """The bandwidth for a head of dimension d."""
        raise NotImplementedError


BANDWIDTH_RULES: Registry[BandwidthRule] = Registry("bandwidth rule", BandwidthRule)


@BANDWIDTH_RULES.register("paper", N_("paper: 1/√d"))
class PaperRule(BandwidthRule):
    """h = 1/√d, as the paper sets it."""

    def h(self, s: ScenarioFields, d: int) -> float:
        return 1.0 / math.sqrt(d)


@BANDWIDTH_RULES.register("scott", N_("Scott: n^(-1/(d+4))"))
class ScottRule(BandwidthRule):
    """h = n^(-1/(d+4)), Scott's rule for unit-variance inputs."""

    def h(self, s: ScenarioFields, d: int) -> float:
        return float(s.n ** (-1.0 / (d + 4)))


@BANDWIDTH_RULES.register("fixed", N_("fixed"))
class FixedRule(BandwidthRule):
    """h = the `bandwidth` field, whatever the dimension."""

    bandwidth: Annotated[Float, Sweep((0.25, 0.5, 1, 2, 4))] = Field(
        1.0, ge=1e-3, le=1e3, title=N_("bandwidth h (fixed)"), description=N_("Bandwidth for bandwidth_rule 'fixed'.")
    )

    def h(self, s: ScenarioFields, d: int) -> float:
        return self.bandwidth


def bandwidth(s: ScenarioFields, d: int) -> float:
    """h of the Gaussian kernel for a head of dimension d under the scenario's rule."""
    return BANDWIDTH_RULES[s.bandwidth_rule].of(s).h(s, d)
