"""LLM game adapters: prompt building and answer parsing per game, for the LLM agents.

A game names its adapter in its ``GameSpec.llm_adapter`` (e.g.
``"cluegym.agents.llm.adapters.decrypto"``); the module exposes:

* ``generalist_messages(observation, info, seat) -> messages``: the env's own prompt, verbatim
  (with the images, for Dixit), as the Decrypto paper's generalist protocol requires;
* ``parse_action(text, observation, info, seat) -> action``: the reply mapped to the env's
  action space (raises :class:`~cluegym.agents.llm.parsing.ParseError` with a reason);
* ``specialist_class(seat) -> type``: the papers' prompts for that seat (``llm-cot``).

A game that names none is played by the generalist through :mod:`.generic`, which reads the
answer by the seat's action space (and has no ``llm-cot``).
"""
