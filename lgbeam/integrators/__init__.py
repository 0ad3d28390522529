"""lgbeam.integrators."""
