"""The versions rules are checked against, with the probe's runtime versions in the order
the design fixes: configuration first, then the live probe, then installed package
metadata, then the default (tapelsp side)."""

from __future__ import annotations

from ..settings import Settings, Targets
from ..versions import Version
from .report import ProbeReport

PROBE_ORIGIN = "probe"


def _parse(text: str | None) -> Version | None:
    try:
        return Version.parse(text) if text else None
    except ValueError:
        return None


def probe_targets(settings: Settings, report: ProbeReport | None) -> Targets:
    """`settings.targets()` with what the user's interpreter really runs filling the gaps
    the configuration leaves."""
    fallback = settings.targets()
    if report is None:
        return fallback
    tensorflow = _parse(report.version("tensorflow"))
    keras = _parse(report.version("keras")) or _parse(report.version("tf_keras"))
    tfp = _parse(report.version("tensorflow_probability"))
    if settings.tensorflow_version:
        tensorflow_target, origin = fallback.tensorflow, fallback.origin
    elif tensorflow is not None:
        tensorflow_target, origin = tensorflow, PROBE_ORIGIN
    else:
        tensorflow_target, origin = fallback.tensorflow, fallback.origin
    return Targets(
        tensorflow=tensorflow_target,
        keras=_parse(settings.keras_version) or keras or fallback.keras,
        tensorflow_probability=_parse(settings.tensorflow_probability_version) or tfp or fallback.tensorflow_probability,
        origin=origin,
    )
