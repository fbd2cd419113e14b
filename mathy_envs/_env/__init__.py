"""The parts of `MathyEnv` below it: decoding and sampling actions, the agent's
side of a state, a state's text form, and the rendering of an episode."""
