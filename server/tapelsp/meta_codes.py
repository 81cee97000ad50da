"""The codes of tapelsp's own findings about a file (not about TensorFlow use).

A module of its own so that front ends can name them without importing the engine.
"""

SYNTAX_ERROR = "TL001"
UNREADABLE = "TL002"
TOO_COMPLEX = "TL003"
INTERNAL_ERROR = "TL004"
