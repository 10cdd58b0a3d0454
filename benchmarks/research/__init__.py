"""Research on Quintet's equilibria, outside the product (not in the wheel; the package never
imports it): pure security levels, the structure of a deal's equilibria, the equilibrium-set
program and PSRO.  The benchmarks and tests import it as ``research`` (``benchmarks/`` on the path)."""
