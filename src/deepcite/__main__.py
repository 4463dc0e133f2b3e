"""``python -m deepcite`` runs the CLI."""

from deepcite.cli import main

main()
