"""Self-play training scripts for cluegym (no game logic here)."""
