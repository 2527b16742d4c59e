"""Dixit (DixitWorld arena rules): rules, env, the card deck and its shipped default data."""
