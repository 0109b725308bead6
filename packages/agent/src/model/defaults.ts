/**
 * The model each provider's adapter uses when the caller names none (L12.5): the one place
 * the CLI and any other front end read their defaults from. `openai` is a small, current
 * Chat Completions model; `anthropic` is the current Sonnet (the previous default,
 * `claude-sonnet-4-5`, reached end of life on 2026-11-30). Frozen.
 */
export const DEFAULT_MODELS: Readonly<{ openai: string; anthropic: string }> = Object.freeze({
  openai: 'gpt-5.4-mini',
  anthropic: 'claude-sonnet-5-5',
})
