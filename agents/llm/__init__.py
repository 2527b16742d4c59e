"""LLM and VLM agents: backends (OpenAI-compatible, local transformers), tolerant parsing,
the papers' prompts per game, CoMet, and the Decrypto theory-of-mind probes.

Registered agents (see :data:`cluegym.agents.AGENTS`):

* ``llm``: the generalist; its prompt is the env's observation prompt, verbatim.
* ``llm-cot``: the papers' specialist prompts per game and role (Decrypto A.2/A.3 with
  ``ANSWER: {...}``; DixitWorld's JSON prompts with images, ``listener=direct|entailment``;
  chain-of-thought for Undercover and Adversarial Taboo). Decrypto options ``tom=true`` (Alice predicts Eve's guess; Eve
  answers the representational-change/false-belief probes) and ``reconsider=true`` (Alice
  re-examines her hints, Listing 8).
* ``comet``: CoMet (feature extractor, metaphor reasoner, belief mapper, self-monitor,
  strategy planner, metaphor generator with an experience pool, voter) for Undercover and
  Adversarial Taboo.

Nothing heavy is imported here; models load on first use.
"""
