"""Decrypto (3-player variant of the Decrypto benchmark paper): rules, env, data."""
