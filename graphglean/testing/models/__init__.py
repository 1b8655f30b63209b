"""Fake models: responders that answer graphglean's and the peers' prompts as a compliant model would, answers
garbled as small models garble the format, and a corpus with planted communities."""
