"""lgbeam.cli."""
