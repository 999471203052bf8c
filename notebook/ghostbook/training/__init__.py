"""Training pipeline for Ghostbook's own FIM code model: corpus, tokenizer, FIM data, train, export."""
