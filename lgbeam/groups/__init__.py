"""lgbeam.groups."""
