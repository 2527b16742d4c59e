"""Prompt building and answer parsing per game, for the LLM agents.

Each module (one per game, listed in :data:`cluegym.agents.llm.agent.GAME_ADAPTERS`) exposes:

* ``generalist_messages(observation, info, seat) -> messages``: the env's own prompt, verbatim
  (with the images, for Dixit), as the Decrypto paper's generalist protocol requires;
* ``parse_action(text, observation, info, seat) -> action``: the reply mapped to the env's
  action space (raises :class:`~cluegym.agents.llm.parsing.ParseError` with a reason);
* ``specialist_class(seat) -> type``: the papers' prompts for that seat (``llm-cot``).
"""
