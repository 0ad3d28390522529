"""lgbeam.discretisations."""
