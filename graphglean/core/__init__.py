"""Foundation: errors, the settings and their YAML loader, tokens, prompt templates, atomic writes, batched SQLite
writes, sync wrappers; pure and synchronous."""
