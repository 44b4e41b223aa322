"""`python -m bench`: every benchmark in turn."""
from bench import engines, moves

engines.main([])
moves.main([])
