"""lgbeam.discretisations.rods."""
