"""Facts about one file, computed once and shared by every rule."""

from .build import build
from .model import Binding, CallSite, Facts, ModeMarker, Scope, Tape, TfFunction

__all__ = ["build", "Binding", "CallSite", "Facts", "ModeMarker", "Scope", "Tape", "TfFunction"]
