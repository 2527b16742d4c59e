"""Undercover (the CoMet setup): rules, env, prompts and CoMet's 200 word pairs."""
