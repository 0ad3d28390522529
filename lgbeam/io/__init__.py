"""lgbeam.io."""
