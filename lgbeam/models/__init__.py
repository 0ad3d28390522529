"""lgbeam.models."""
