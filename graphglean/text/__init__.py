"""Where text comes in: files, folders, JSONL, stdin and LoCoMo read into documents, chunks and chat messages; token
chunking."""
