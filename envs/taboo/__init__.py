"""Adversarial Taboo (as in CoMet): rules, env, prompts, derivative matching, target words."""
