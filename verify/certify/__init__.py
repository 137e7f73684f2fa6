"""Separability certificates: [gamma_lo, gamma_hi] around the maximum margin, or a verified
Farkas/Gordan proof that no separator exists (verify.certify.certificates)."""
