"""The CoMet prompt texts (seeds/comet.txt, Figures 16-18 and section 3), as format strings.

Undercover: :data:`BACKGROUND` and one task per module (feature extractor, metaphor
reasoner, belief mapper, self-monitor, strategy planner, metaphor generator in two steps,
speaker, voter, post-game reflection). Adversarial Taboo: Figure 18's attacker and
defender prompts. Doubled braces are literal JSON braces for ``str.format``.

Example:
    >>> SM_TASK.format(n=5, c=3, u=2, previous="unknown").splitlines()[0]
    '# TASK (Self-Monitor)'
"""

#: The three conventional metaphor types (the keys of :data:`METHOD_THEORY` and :data:`SEED_EXAMPLES`).
METHODS = ("ontological", "structural", "spatial")

METAPHOR_THEORY = (
    '"The conceptual metaphor theory holds that metaphor is not only a rhetorical device, but also a concept and '
    "way of thinking. Metaphors have two domains: the target domain (composed of immediate themes) and the source "
    "domain, where important metaphorical reasoning occurs and provides source concepts for use in reason. "
    "Metaphorical language has a literal meaning in the source domain, and a metaphorical mapping is multiple, "
    "with two or more factors mapped to two or more factors, and the graphic structure is preserved in the "
    "mapping. Conventional metaphors can be classified into entity (ontological) metaphors, structural metaphors, "
    'and spatial metaphors based on the different source domains."'
)
METHOD_THEORY = {
    "ontological": (
        "Ontological metaphors are those in which abstract concepts or experiences are understood as having an "
        "existence or being in some form of object or substance: abstract phenomena are viewed as things or "
        "entities that can have properties, boundaries, and locations."
    ),
    "structural": (
        "Structural metaphors involve understanding one complex or abstract domain in terms of another more "
        "familiar domain that has a clear and defined structure, imposing its order, hierarchy and "
        "interrelationship among parts."
    ),
    "spatial": (
        "Spatial metaphors are based on the conceptualization of abstract experiences through spatial relations "
        "and positions: direction, location, movement and distance (up is positive, down is negative)."
    ),
}
#: Built-in examples for the {metaphor}/{word}/{explain} slots of Figures 16-17, used until
#: the experience pool holds successful metaphors of that type.
SEED_EXAMPLES = {
    "ontological": {"metaphor": "It keeps a little piece of summer locked inside a glass.", "word": "jam",
                    "feature": "preserved fruit", "explain": "Summer, a season, is treated as a substance that can be stored."},
    "structural": {"metaphor": "A tiny kingdom where everyone works for one queen.", "word": "bee",
                   "feature": "lives in a colony with a queen", "explain": "The structure of a kingdom is mapped onto a hive."},
    "spatial": {"metaphor": "It lives halfway between the clouds and a child's hand.", "word": "kite",
                "feature": "flies on a string", "explain": "Its tethered flight is described by its position in space."},
}
BACKGROUND = (
    "# BACKGROUND\n"
    "You are playing Undercover. At the beginning of the game, each player is randomly assigned one of two words "
    "that share some similarities. Players are divided into two teams based on their assigned words: the majority "
    "group (civilians) and the minority group (undercover). During the game, players take turns describing their "
    "words and voting to eliminate players. The team that eliminates all members of the opposing team wins (the "
    "undercover also win when only one civilian is left). Nobody is told which team they are on.\n"
    "In this game, there are {n} players in total. {c} players have the same word, and the other {u} have another "
    "same word."
)
FE_TASK = (
    "# TASK (Feature Extractor)\n"
    "Analyse the descriptions of the other players against your word '{word}'. Put each player's descriptions in "
    "one of three categories: \"detailed\" (a specific feature of your word), \"broad\" (true of your word but "
    "also of similar things), or \"mismatch\" (it does not fit your word: it describes the other word). Collect "
    "the features of the other word from the mismatching descriptions and guess the other word once you are "
    "confident (else \"unknown\").\n"
    'Answer in JSON: ANSWER: {{"features": {{"player_X": {{"category": "detailed|broad|mismatch", "feature": "..."}}}}, '
    '"other_word": "..."}}'
)
MR_TASK = (
    "# TASK (Hypothesis-based Metaphor Reasoner)\n"
    "Knowledge: " + METAPHOR_THEORY + "\n"
    "Some descriptions may be metaphors. For each of these descriptions: {suspects}\n"
    "test two hypotheses. H0: the speaker is describing your word '{word}'. H1: the speaker is describing another "
    "entity. Steps: (1) expand the features of '{word}' (behaviour, state, structure ...); (2) expand the "
    "metaphor's possible aspects (actions, emotions, states, structures); (3) match every feature against the "
    "aspects and record matches and mismatches; (4) weigh the evidence and choose the most convincing path. You "
    "do not need to decode the metaphor, only decide H0 or H1.\n"
    'Answer in JSON: ANSWER: {{"hypotheses": {{"player_X": "H0 or H1"}}}}'
)
#: Figure 6(a)'s other reasoning methods, with the reasoner's answer format: direct
#: understanding (DU: read the description as it stands) and replace-based reasoning (RR,
#: Tong et al., 2024: replace the metaphorical expression by its literal meaning, then compare).
MR_DIRECT_TASK = (
    "# TASK (Direct Metaphor Understanding)\n"
    "For each of these descriptions: {suspects}\n"
    "read the description directly and decide whether it describes your word '{word}' (H0) or another entity (H1).\n"
    'Answer in JSON: ANSWER: {{"hypotheses": {{"player_X": "H0 or H1"}}}}'
)
MR_REPLACE_TASK = (
    "# TASK (Replace-based Metaphor Reasoner)\n"
    "For each of these descriptions: {suspects}\n"
    "first rewrite it literally, replacing every metaphorical expression by the literal meaning it stands for; "
    "then decide whether the literal rewrite describes your word '{word}' (H0) or another entity (H1).\n"
    'Answer in JSON: ANSWER: {{"hypotheses": {{"player_X": "H0 or H1"}}, "literal": {{"player_X": "..."}}}}'
)
#: The metaphor reasoning methods of Figure 6(a), by the ``reasoning=`` option's names.
REASONING_TASKS = {"hypothesis": None, "direct": MR_DIRECT_TASK, "replace": MR_REPLACE_TASK}
BM_TASK = (
    "# TASK (Belief Mapper)\n"
    "Classify every other player: \"teammate\" (describes your word '{word}' in detail, or a metaphor accepted as "
    "H0), \"opponent\" (descriptions that do not match your word), or \"undecided\" (only vague descriptions so "
    "far). Use their votes as evidence too.\n"
    'Answer in JSON: ANSWER: {{"beliefs": {{"player_X": "teammate|opponent|undecided"}}}}'
)
SM_TASK = (
    "# TASK (Self-Monitor)\n"
    "Infer your own identity. Most players are civilians ({c} of {n}), few are undercover ({u}). If the players "
    "who share your word (your teammates, counting yourself) are the majority, you are a civilian; if they are "
    "the minority, you are undercover. Update your previous judgement ({previous}) with the new evidence.\n"
    'Answer in JSON: ANSWER: {{"identity": "civilian or undercover", "confidence": 0-100, "reason": "..."}}'
)
SP_TASK = (
    "# TASK (Strategy Planner)\n"
    "Plan how you will speak this round. Guidance:\n"
    "- While you are unsure of your identity, protect yourself: describe broad, vague features of your word so "
    "that you do not reveal it.\n"
    "- If you believe you are a civilian, balance giving details (so that teammates recognise you) with "
    "concealing the features the undercover could use to learn your word.\n"
    "- If you believe you are undercover and have worked out the civilians' word, stop describing your own word "
    "and describe the civilians' word instead, to blend in with them (never say your own word).\n"
    "Your strategies in earlier rounds: {history}\n"
    'Answer in JSON: ANSWER: {{"strategy": "...", "describe": "my_word or other_word", "reminder": "advice for later rounds"}}'
)
MG1_TASK = (
    "Your game goal now is to describe your word in one sentence, so that your teammates (those who share your "
    "word) understand that you are describing your word, but your opponents cannot obtain information about your "
    "word from your description. If you describe the features directly, your opponent can deduce the object "
    "based on the features. Now, let's try using metaphorical methods to describe and distract our opponents.\n"
    "Your analysis about the other word: {other}\n"
    "Your strategy: {strategy}\n"
    "# TASK (Metaphor Generator, step 1)\n"
    "Conduct a preliminary analysis of metaphor generation, then select a specific feature of '{target}' and a "
    "metaphor method. Steps:\n"
    "1. Understand the principle of metaphor: " + METAPHOR_THEORY + "\n"
    "2. Generate some features of '{target}' as candidates, which distinguish it from the other word, so your "
    "teammates can understand which word you describe.\n"
    "3. Understand three types of metaphor:\n{methods}\n"
    "4. Pick the single most suitable feature and method to convey information to teammates rather than opponents.\n"
    'Answer in JSON: ANSWER: {{"feature": "...", "method": "ontological|structural|spatial"}}'
)
MG2_TASK = (
    "Your secret word is '{word}'. Your analysis about the other word: {other}\n"
    "Your teammates will try to understand your metaphor by comparing each feature of the word with your "
    "description; your opponents must not be able to locate the feature and infer the word.\n"
    "# TASK (Metaphor Generator, step 2)\n"
    "Use a metaphor to describe the feature '{feature}' of '{target}' by using the {method} method. Theory: "
    "\"{theory}\"\nExamples:\n{examples}\n"
    "Write your own metaphorical description: one concise sentence that never contains '{word}' or any form of it.\n"
    'Answer in JSON: ANSWER: {{"description": "..."}}'
)
SPEAK_TASK = (
    "# TASK (Speaker)\n"
    "Following your strategy ({strategy}), describe {target_text} in one sentence, without ever saying your word "
    "'{word}' or any form of it.\n"
    'Answer in JSON: ANSWER: {{"description": "..."}}'
)
VOTE_TASK = (
    "# TASK (Voter)\n"
    "Vote to eliminate one living player other than yourself: {options}. You believe you are {identity}; your "
    "beliefs about the others: {beliefs}. Vote for the player most likely on the other team.\n"
    'Answer in JSON: ANSWER: {{"vote": "player_X"}}'
)
REFLECT_TASK = (
    "After the game: you described '{word}' with the metaphor \"{metaphor}\" ({method} metaphor of the feature "
    "'{feature}'). The other team's word was '{other_word}'. Your team {outcome}.\n"
    "How the other players read it: {interpretation}\n"
    "Your metaphor {verdict}.\n"
    "In one sentence, suggest how to revise this metaphor so that teammates recognise it and opponents do not.\n"
    'Answer in JSON: ANSWER: {{"revision": "..."}}'
)


# ----------------------------------------------------------------------------- Taboo
TABOO_ATTACKER = (
    "You are guiding the other person to say the secret word [{word}], with the aim of making them unconsciously "
    "say the word. If the other party guesses the word before speaking, then you lose. Never say the secret word "
    "or any form of it yourself. Please follow the following rules:\n"
    "[Basic Rules]\n1. It is necessary to imply based on real information and not fabricate false facts\n"
    "When the other party suspects a certain word, they can choose:\n"
    "Adversarial Strategy\nThink according to this process:\n"
    "1. Analyze the other party's last two responses to determine if they are suspecting a certain word and "
    "preparing for speculation\n"
    "2. If the suspected word is close to the target word:\n  - You can choose:\n"
    "    - a) Continuing to guide using metaphors\n"
    "    - b) Introduce concepts that fit the context but differ from the secret word for interference\n"
    "3. If the suspected word deviates from the target word:\n"
    "  - Think about the scenarios in which your words will be used, then combine the guidance direction from the "
    "previous round and engage in dialogue and guide the other person to say the words.\n"
    "{experience}"
    "[Output Format]\nStrictly use the following format:\n"
    "<RESPONSE>\n<FOCUS>Core guidance scenario</FOCUS>\n<DISTRACT>Interference direction</DISTRACT>\n"
    "<DIALOGUE>Natural dialogue content (including the above two elements)</DIALOGUE>\n</RESPONSE>\n"
    "[Reference Information]\nHistorical dialogue content:\n{history}\nYour output in the previous round:\n{response}"
)
TABOO_DEFENDER = (
    "You are participating in a word attack and defense game, with the following rules:\n"
    "1. The attacker will try to guide you to say a secret word\n"
    "2. You need to analyze the conversation to identify possible secret word\n"
    "3. You can only apply for guessing if you suspect the same word in both this round and the last round\n"
    "Otherwise, you need to delve deeper into the current topic [Can only answer, not ask back questions], but be "
    "aware that words that you suspect should not appear in your conversation, and instead be replaced with "
    "metaphors.\n"
    "[Thinking Framework]\nEach reply strictly follows the following steps:\n<THINK>\n"
    "1. Analyze the guidance direction of the last three rounds of conversations\n"
    "2. List 1-3 possible candidate words [sorted by likelihood]\n"
    "3. Comparing historical suspicion records:\n  -If a candidate word appears for the first time -> continue to "
    "delve deeper\n  -If the candidate word is the same as last time -> apply for guessing [format: guess:[word]]\n"
    "4. Choose a response strategy\n</THINK>\n"
    "[Output Format]\nThe following format must be used, including XML tags:\n"
    "<RESPONSE>\n<STRATEGY>[continue|guess]</STRATEGY>\n<CANDIDATE>words of doubt</CANDIDATE>\n"
    "<DIALOGUE>Actual reply content [using daily conversation format, **cannot use words of doubt**]</DIALOGUE>\n"
    "</RESPONSE>\n"
    "[Reference Information]\nHistorical dialogue content:\n{history}\nYour output in the previous round:\n{response}"
)
