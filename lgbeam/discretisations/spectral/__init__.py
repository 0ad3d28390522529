"""lgbeam.discretisations.spectral."""
