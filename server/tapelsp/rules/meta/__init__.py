"""The meta rules (TL001-TL004): problems with the file itself or with tapelsp."""
