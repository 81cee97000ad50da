"""The optimizer rules (OPT001-OPT002): gradients and losses handed to an optimizer."""
